"""The plumbing wing: everything the notebooks run on but no notebook teaches.

A learner reads the lesson modules at the top level of ``helpers`` (``helpers.attention``,
``helpers.layer``, ``helpers.training`` …); the code here only makes the series work the same way
everywhere, so it is kept out of their way:

- arguments: :mod:`~helpers.render.validation` (every public function's argument checks);
- stored data: :mod:`~helpers.render.npz` (the one byte-stable ``.npz`` writer and reader);
- numbers and pictures: :mod:`~helpers.render.format` (numbers as text), :mod:`~helpers.render.table`
  (tables as HTML with their text), :mod:`~helpers.render.png` (figures as PNG bytes),
  :mod:`~helpers.render.palette`, :mod:`~helpers.render.style`, :mod:`~helpers.render.fonts` (the
  bundled Chinese font), :mod:`~helpers.render.panels` (generic figure pieces);
- live explorers: :mod:`~helpers.render.explorer` (the pattern), :mod:`~helpers.render.controls`
  (controls and readouts several explorers share), :mod:`~helpers.render.text_stamps`,
  :mod:`~helpers.render.memo` (caches bounded by bytes), :mod:`~helpers.render.threads`,
  :mod:`~helpers.render.web` (what an explorer draws on the book's web pages, and beside it the
  page's renderer, ``attnlab_live.js``, held to the one declaration of the panels it draws).

Its base modules (validation, npz, format, palette, style, fonts, threads) import nothing else from
``helpers``, so lesson modules may use them; the others sit above the lessons. Grading — reading
typed answers, checking the functions a learner writes — is the other wing, :mod:`helpers.grading`.
The faces (``helpers.display``, ``helpers.plots``, ``helpers.widgets``, ``helpers.exercises``) gather
what the notebooks call; nothing here imports a face. See CONTRIBUTING.md, "where things are".
"""
