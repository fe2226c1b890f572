"""The book: the static site and its one-page print version (``build.py``, ``make site``), the PDF
(``pdf.py``, ``make pdf``), Sphinx's configuration (``conf.py``) and the series' extension
(``attnlab_site.py``), the live explorers and the offline zip (``live/``)."""
