"""The check over actions written as statements standing in the flow itself (`then while ...`,
`then if ...`, `then assign ...`), the style most action models are written in: through the flat form
and through the interpreter's run, beside the peer where it is installed (dev only).

The family: N ticket sellers forked from one start, each a `while` of K rounds standing in its
branch's flow, checking then acting on one shared stock (`if tickets > 0 { take one }`: two sellers
may both see the last ticket), T tickets. And the crew (rows `crew:N:T`): the sellers written as one
step of N performances (`action sell[N] { while tickets > 0 { if tickets > 0 { take one } } }`), each
selling until it sees none left. And the tellers (rows `tellers:N:K`): N tellers forked, each a chain of K
steps typed by one action def (`action t1x1 : Debit { in amount = 1; inout balance = balance; }`) that
copies the balance in as it begins and out as it ends, so overlapping debits lose updates. And the mailroom
(rows `mail:N`): N senders and N receivers forked, each receiver taking the oldest message and logging
it (`assign log := log * 10 + r1.v`), so the log spells the order the messages were taken in. And the
production lines (rows `lines:N:K`): N lines forked, each a pipeline of K stages handing their values on by
flows (`flow l1s1.v to l1s2.x;`), each stage adding a gain that a tuner changes once, the last adding its
value to one total.

    python benchmarks/check_statements.py              # the default rows
    python benchmarks/check_statements.py 3:3:4        # sellers:rounds:tickets
    python benchmarks/check_statements.py crew:6:8     # a crew of 6 sellers, 8 tickets
    python benchmarks/check_statements.py tellers:3:2  # 3 tellers of 2 debits each
    python benchmarks/check_statements.py mail:3       # 3 senders, 3 receivers
    python benchmarks/check_statements.py lines:3:3    # 3 lines of 3 stages
    python benchmarks/check_statements.py --no-peer
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.check_scaling import noisy, ours, peer, peer_columns

DEFAULT_ROWS = ["2:3:3", "3:2:3", "3:3:4", "4:2:3", "crew:3:3", "crew:4:6", "tellers:3:2", "tellers:3:3", "mail:3", "mail:4",
                "lines:2:3", "lines:3:3"]


def sellers(n: int, k: int, tickets: int) -> tuple[str, str]:
    """The model's text and the action's qualified name."""
    lines = ["package sellers {", "\tprivate import ScalarValues::*;", "\taction sell {",
             f"\t\tattribute tickets : Integer := {tickets};"]
    lines += [f"\t\tattribute sold{i} : Integer := 0;\n\t\tattribute rounds{i} : Integer := 0;" for i in range(1, n + 1)]
    lines += ["\t\tfirst start;", "\t\tthen fork open;"] + [f"\t\t\tthen seller{i};" for i in range(1, n + 1)]
    for i in range(1, n + 1):
        lines += [f"\t\taction seller{i};",
                  f"\t\tthen while rounds{i} < {k} {{",
                  f"\t\t\tassign rounds{i} := rounds{i} + 1;",
                  f"\t\t\tthen if tickets > 0 {{ assign tickets := tickets - 1; then assign sold{i} := sold{i} + 1; }}",
                  "\t\t}",
                  f"\t\tthen action closed{i};",
                  f"\t\tsuccession first closed{i} then shut;"]
    lines += ["\t\tjoin shut;", "\t\tthen done;", "\t}", "}"]
    return "\n".join(lines) + "\n", "sellers::sell"


def crew(n: int, tickets: int) -> tuple[str, str]:
    """The crew's text and the action's qualified name: N sellers as one step with a multiplicity."""
    lines = ["package crew {", "\tprivate import ScalarValues::*;", "\taction sell {",
             f"\t\tattribute tickets : Integer := {tickets};", "\t\tattribute sold : Integer := 0;",
             "\t\tfirst start then sellers;", f"\t\taction sellers[{n}] {{",
             "\t\t\twhile tickets > 0 {",
             "\t\t\t\tif tickets > 0 { assign tickets := tickets - 1; then assign sold := sold + 1; }",
             "\t\t\t}", "\t\t}", "\t\tthen done;", "\t}", "}"]
    return "\n".join(lines) + "\n", "crew::sell"


def tellers(n: int, k: int) -> tuple[str, str]:
    """The tellers' text and the action's qualified name: N branches of K typed debits on one balance."""
    lines = ["package tellers {", "\tprivate import ScalarValues::*;", "\taction def Debit {",
             "\t\tin amount : Integer;", "\t\tinout balance : Integer;",
             "\t\tfirst start;", "\t\tthen action take { assign balance := balance - amount; }", "\t\tthen done;",
             "\t}", "\taction bank {", "\t\tattribute balance : Integer := 1000;", "\t\tfirst start;",
             "\t\tthen fork open;"] + [f"\t\t\tthen t{i}x1;" for i in range(1, n + 1)]
    for i in range(1, n + 1):
        for j in range(1, k + 1):
            after = f"t{i}x{j + 1}" if j < k else "shut"
            lines += [f"\t\taction t{i}x{j} : Debit {{ in amount = {i}; inout balance = balance; }}", f"\t\tthen {after};"]
    lines += ["\t\tjoin shut;", "\t\tthen done;", "\t}", "}"]
    return "\n".join(lines) + "\n", "tellers::bank"


def mail(n: int) -> tuple[str, str]:
    """The mailroom's text and the action's qualified name: N senders, N receivers logging what they take."""
    lines = ["package mail {", "\tprivate import ScalarValues::*;", "\taction room {",
             "\t\tattribute log : Integer := 0;", "\t\tfirst start;", "\t\tthen fork open;"]
    lines += [f"\t\t\tthen s{i};" for i in range(1, n + 1)] + [f"\t\t\tthen r{i};" for i in range(1, n + 1)]
    for i in range(1, n + 1):
        lines += [f"\t\taction s{i} send {i};", f"\t\tfirst s{i} then shut;",
                  f"\t\taction r{i} accept v : Integer;", f"\t\tthen action k{i} {{ assign log := log * 10 + r{i}.v; }}",
                  f"\t\tfirst k{i} then shut;"]
    lines += ["\t\tjoin shut;", "\t\tthen done;", "\t}", "}"]
    return "\n".join(lines) + "\n", "mail::room"


def lines(n: int, k: int) -> tuple[str, str]:
    """The plant's text and the action's qualified name: N lines of K stages joined by flows, a tuner racing."""
    out = ["package lines {", "\tprivate import ScalarValues::*;", "\taction plant {",
           "\t\tattribute gain : Integer := 1;", "\t\tattribute total : Integer := 0;", "\t\tfirst start;",
           "\t\tthen fork open;", "\t\t\tthen tune;"]
    out += [f"\t\t\tthen l{i}s1;" for i in range(1, n + 1)]
    out.append("\t\taction tune { assign gain := 2; }")
    for i in range(1, n + 1):
        for j in range(1, k):
            out += [f"\t\taction l{i}s{j} {{ in x : Integer := 0; out v : Integer; assign v := x + gain; }}",
                    f"\t\tsuccession l{i}s{j} then l{i}s{j + 1};", f"\t\tflow l{i}s{j}.v to l{i}s{j + 1}.x;"]
        out.append(f"\t\taction l{i}s{k} {{ in x : Integer := 0; assign total := total + x + gain; }}")
    out += ["\t}", "}"]
    return "\n".join(out) + "\n", "lines::plant"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", default=DEFAULT_ROWS, help="sellers:rounds:tickets or crew:sellers:tickets")
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    print(f"{'model':<16}{'states':>9}{'moves':>10}{'flat s':>9}{'interp s':>10}{'speed-up':>10}"
          f"{'peer states':>13}{'peer s':>9}{'time ratio':>12}")
    for row in args.rows:
        if row.startswith("crew:"):
            n, tickets = (int(part) for part in row.removeprefix("crew:").split(":"))
            text, name = crew(n, tickets)
            label = f"crew {n} t{tickets}"
        elif row.startswith("mail:"):
            n = int(row.removeprefix("mail:"))
            text, name = mail(n)
            label = f"mail {n}"
        elif row.startswith("lines:"):
            n, k = (int(part) for part in row.removeprefix("lines:").split(":"))
            text, name = lines(n, k)
            label = f"lines {n}x{k}"
        elif row.startswith("tellers:"):
            n, k = (int(part) for part in row.removeprefix("tellers:").split(":"))
            text, name = tellers(n, k)
            label = f"tellers {n}x{k}"
        else:
            n, k, tickets = (int(part) for part in row.split(":"))
            text, name = sellers(n, k, tickets)
            label = f"sellers {n}x{k} t{tickets}"
        flat = ours(text, name)
        slow = ours(text, name, flat=False)
        if (flat["states"], flat["moves"]) != (slow["states"], slow["moves"]):
            raise SystemExit(f"{row}: the flat form and the interpreter searched apart: {flat} against {slow}")
        seconds, interpreted = float(flat["seconds"]), float(slow["seconds"])  # type: ignore[arg-type]
        line = (f"{label:<16}{flat['states']:>9}{flat['moves']:>10}{seconds:>9.2f}"
                f"{interpreted:>10.2f}{interpreted / seconds if seconds else 0:>10.1f}")
        print(line + peer_columns(seconds, None if args.no_peer else peer(text, name)), flush=True)
    noisy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
