"""The book's live pages: every explorer's data put in its page (``live_pages.py``), the offline book as
one zip (``site_zip.py``), their measurements (``live_bench.py``) and 你自己的句子's in-browser engine
(``sentence/``)."""
