"""How the palette looks to colour-blind readers, and how far apart two colours are.

Test support: the palette tests and the figure scan use it; the wheel does not ship it.

:func:`simulate` shows an sRGB colour as a reader with protanopia, deuteranopia or tritanopia sees
it, with the matrices of Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for
Simulation of Color Vision Deficiency", IEEE TVCG 15(6):1291–1298, doi:10.1109/TVCG.2009.113, at
severity 1.0 (the dichromat end of their table, as published on the authors' page
https://www.inf.ufrgs.br/~oliveira/pubs_files/CVD_Simulation/CVD_Simulation.html; the same numbers
are ``colour.CVD_MATRICES_MACHADO2010`` in colour-science). The matrices act on *linear* RGB, so a
colour is decoded from sRGB first and encoded back after (clipped to the gamut).

:func:`delta_e` is CIEDE2000 (ΔE00; Sharma, Wu & Dalal 2005, "The CIEDE2000 color-difference
formula: implementation notes, supplementary test data, and mathematical observations", Color Res.
Appl. 30(1):21–30) between two sRGB colours converted to CIE L*a*b* (D65). CIEDE2000 rather than
CIE76 because CIE76 overstates differences between saturated colours (blues, purples) by a factor
of two or more, which is where a palette's pairs tend to sit.

:data:`MIN_DELTA_E` is the bar a role set must clear (see its comment). Taught nowhere.
"""
from __future__ import annotations

import itertools

import numpy as np

from helpers.render.validation import as_real_array, choice

#: Machado et al. (2009), Table 1, severity 1.0; rows map linear (R, G, B) to the simulated linear RGB
MACHADO_2009 = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
#: every way of seeing a role set is checked in: ordinary vision and the three dichromacies
VISIONS = ("normal", *MACHADO_2009)

#: The smallest CIEDE2000 difference allowed between two colours that share a role set, under every
#: vision in :data:`VISIONS`. ΔE00 ≈ 1 is a just-noticeable difference between two large patches side
#: by side; the series' colours mark thin arrows, lines and small bars that a reader matches to a
#: legend or a word elsewhere in the figure, and the difference needed grows several-fold as marks
#: shrink (Szafir 2018, "Modeling Color Difference for Visualization Design", IEEE TVCG 24(1)).
#: 10 is a common rule of thumb for categorical colours that must be told apart, not just seen to
#: differ, and every set in the palette clears it; the pairs that were at ≈ 6 (02's q/k/v, 03's
#: parts under deuteranopia) were the ones readers could not tell apart.
MIN_DELTA_E = 10.0


def _srgb(name: str, colour) -> np.ndarray:
    from matplotlib.colors import to_rgb

    try:
        return np.array(to_rgb(colour), dtype=float)
    except (ValueError, TypeError):
        raise ValueError(f"{name} must be a matplotlib colour (a hex string from the palette), got {colour!r:.60}") from None


def _to_linear(rgb: np.ndarray) -> np.ndarray:
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _from_linear(lin: np.ndarray) -> np.ndarray:
    lin = np.clip(lin, 0.0, 1.0)
    return np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)


def simulate(colour, vision: str) -> np.ndarray:
    """sRGB (0–1) of ``colour`` as seen with ``vision`` (``"normal"`` or a key of :data:`MACHADO_2009`)."""
    return _seen(_srgb("colour", colour), choice("vision", vision, VISIONS))


def _seen(rgb: np.ndarray, vision: str) -> np.ndarray:
    if vision == "normal":
        return rgb
    return _from_linear(MACHADO_2009[vision] @ _to_linear(rgb))


#: linear sRGB → XYZ (IEC 61966-2-1, D65) and the D65 white
_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                 [0.2126729, 0.7151522, 0.0721750],
                 [0.0193339, 0.1191920, 0.9503041]])
_WHITE = _XYZ @ np.ones(3)


def lab(rgb) -> np.ndarray:
    """CIE L*a*b* (D65) of an sRGB triple in 0–1."""
    rgb = as_real_array("rgb", rgb, shape=(3,))
    if rgb.min() < 0 or rgb.max() > 1:
        raise ValueError(f"rgb must be three sRGB components between 0 and 1, got {rgb.tolist()!r:.60}")
    xyz = _XYZ @ _to_linear(rgb) / _WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1, lab2) -> float:
    """ΔE00 between two L*a*b* triples (Sharma et al. 2005, with kL = kC = kH = 1)."""
    L1, a1, b1 = (float(v) for v in as_real_array("lab1", lab1, shape=(3,)))
    L2, a2, b2 = (float(v) for v in as_real_array("lab2", lab2, shape=(3,)))
    if max(abs(v) for v in (L1, a1, b1, L2, a2, b2)) > 1000:
        raise ValueError("lab1 and lab2 must be L*a*b* triples (|components| ≤ 1000), "
                         f"got {[L1, a1, b1]!r:.60} and {[L2, a2, b2]!r:.60}")
    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_bar ** 7 / (c_bar ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360 if c2p else 0.0
    d_l, d_c = L2 - L1, c2p - c1p
    if c1p * c2p == 0:
        d_h = 0.0
    elif abs(h2p - h1p) <= 180:
        d_h = h2p - h1p
    else:
        d_h = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    d_hh = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(d_h / 2))
    l_bar, cp_bar = (L1 + L2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * np.cos(np.radians(h_bar - 30)) + 0.24 * np.cos(np.radians(2 * h_bar))
         + 0.32 * np.cos(np.radians(3 * h_bar + 6)) - 0.20 * np.cos(np.radians(4 * h_bar - 63)))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / np.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_c = 2 * np.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25.0 ** 7))
    r_t = -np.sin(np.radians(2 * 30 * np.exp(-(((h_bar - 275) / 25) ** 2)))) * r_c
    return float(np.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_hh / s_h) ** 2
                         + r_t * (d_c / s_c) * (d_hh / s_h)))


def delta_e(colour1, colour2, vision: str = "normal") -> float:
    """ΔE00 between two colours as a reader with ``vision`` sees them."""
    vision = choice("vision", vision, VISIONS)
    return ciede2000(lab(_seen(_srgb("colour1", colour1), vision)), lab(_seen(_srgb("colour2", colour2), vision)))


def closest_pair(colours, vision: str = "normal") -> tuple:
    """``(ΔE00, colour a, colour b)`` of the two least distinct colours of ``colours`` under ``vision``."""
    if isinstance(colours, (str, bytes)) or not isinstance(colours, (list, tuple)):
        raise TypeError(f"colours must be a list or tuple of colours, got {type(colours).__name__} {colours!r:.60}")
    colours = list(colours)
    if len(colours) < 2:
        raise ValueError(f"colours must hold at least two colours to compare, got {colours!r:.80}")
    for i, c in enumerate(colours):
        _srgb(f"colours[{i}]", c)
    return min(((delta_e(a, b, vision), a, b) for a, b in itertools.combinations(colours, 2)),
               key=lambda item: item[0])
