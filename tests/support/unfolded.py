"""A grader message read as one line: ``wrap_text`` folds a long line at a space or between two CJK
characters, so a phrase is looked for with all whitespace ignored on both sides."""


class Unfolded(str):
    """``phrase in Unfolded(message)``: whether ``phrase`` occurs in ``message``, whitespace ignored."""

    def __contains__(self, phrase) -> bool:
        return "".join(str(phrase).split()) in "".join(self.split())
