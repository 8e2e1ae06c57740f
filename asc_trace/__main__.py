"""`python -m asc_trace info | cache | inspect` (the same as the `asc-trace` command)."""
from .cli import main

raise SystemExit(main())
