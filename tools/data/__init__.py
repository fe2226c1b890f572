"""The committed files a script makes: notebooks 11–12's ``helpers/data/*.npz``, each generator
re-executed in one pinned environment (``pinned.py``) so the bytes are the same on every x86-64
CPU, and the bundled CJK font (``build_cjk_font.py``)."""
