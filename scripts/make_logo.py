"""Draw the kernel logo (dev time, needs Pillow): an action graph, start, fork into two actions, join, done, on a blue tile.

Run from the checkout: python scripts/make_logo.py; it rewrites opensysml_kernel/kernelspec/logo-*.png."""
from PIL import Image, ImageDraw

def draw(size: int) -> Image.Image:
    scale = 8
    n = size * scale
    img = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((0, 0, n - 1, n - 1), radius=n // 6, fill=(28, 84, 160, 255))
    u = n / 32
    white = (255, 255, 255, 255)
    amber = (255, 196, 61, 255)
    w = max(1, round(1.6 * u))
    # edges: start -> fork bar, fork -> two actions, actions -> join bar, join -> done
    d.line((16 * u, 6 * u, 16 * u, 9 * u), fill=white, width=w)
    d.line((8 * u, 10 * u, 24 * u, 10 * u), fill=white, width=round(2.2 * u))
    for x in (10, 22):
        d.line((x * u, 10 * u, x * u, 22 * u), fill=white, width=w)
    d.line((8 * u, 22 * u, 24 * u, 22 * u), fill=white, width=round(2.2 * u))
    d.line((16 * u, 22 * u, 16 * u, 25 * u), fill=white, width=w)
    r = 2.6 * u
    d.ellipse((16 * u - r, 4.5 * u - r, 16 * u + r, 4.5 * u + r), fill=white)
    for x in (10, 22):
        d.rounded_rectangle(((x - 4.5) * u, 13 * u, (x + 4.5) * u, 19 * u), radius=2 * u, fill=amber)
    d.ellipse((16 * u - r, 27.5 * u - r, 16 * u + r, 27.5 * u + r), outline=white, width=w)
    d.ellipse((16 * u - r / 2, 27.5 * u - r / 2, 16 * u + r / 2, 27.5 * u + r / 2), fill=white)
    return img.resize((size, size), Image.LANCZOS)

for s in (32, 64):
    draw(s).save(f"opensysml_kernel/kernelspec/logo-{s}x{s}.png", optimize=True)
