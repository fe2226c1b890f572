"""Where things are, for tests: the checkout's root (tests/support/ is two levels below it)."""
from pathlib import Path

#: the repository's root directory
ROOT = Path(__file__).resolve().parents[2]
#: the notebook audit of the shared workspace, beside the checkout or beside its parent (a worktree)
AUDIT = next((p for p in (ROOT.parent / "shared" / "tools" / "notebook_audit.py",
                          ROOT.parent.parent / "shared" / "tools" / "notebook_audit.py") if p.exists()),
             ROOT.parent / "shared" / "tools" / "notebook_audit.py")
