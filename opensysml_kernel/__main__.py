"""`python -m opensysml_kernel` is the `opensysml-kernel` command."""

from __future__ import annotations

import sys

from opensysml_kernel.cli import main

sys.exit(main())
