#!/usr/bin/env python3
"""Rebuild the bundled CJK font: a GB2312 subset of Noto Sans CJK SC Regular.

Usage: python -m tools.data.build_cjk_font [SOURCE.ttc|SOURCE.otf]
Default source: Debian's fonts-noto-cjk (/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc).
Needs fontTools. Writes helpers/render/fonts/AttnLabSansSC-Regular.otf.

The subset is a Modified Version under the SIL OFL 1.1, so it is renamed (no Reserved Font Name
"Source"; the "Noto" trademark is not used either). The licence sits next to the font (OFL.txt).
"""
import sys

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

from tools import ROOT

FAMILY = "AttnLab Sans SC"
POSTSCRIPT = "AttnLabSansSC-Regular"
DEFAULT_SOURCE = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
OUT = ROOT / "helpers" / "render" / "fonts" / f"{POSTSCRIPT}.otf"


def gb2312_characters():
    chars = set()
    for hi in range(0xA1, 0xF8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.add(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return chars


def wanted_codepoints():
    cps = {ord(c) for c in gb2312_characters()}
    ranges = [
        (0x20, 0x7E),      # ASCII
        (0xA0, 0xFF),      # Latin-1 punctuation and symbols
        (0x2000, 0x206F),  # general punctuation
        (0x2070, 0x209F),  # super- and subscripts
        (0x2190, 0x21FF),  # arrows
        (0x2200, 0x22FF),  # mathematical operators
        (0x2460, 0x24FF),  # enclosed numbers
        (0x2500, 0x257F),  # box drawing
        (0x25A0, 0x25FF),  # geometric shapes
        (0x3000, 0x303F),  # CJK symbols and punctuation
        (0xFF00, 0xFFEF),  # full-width forms
    ]
    for lo, hi in ranges:
        cps.update(range(lo, hi + 1))
    cps.update([0x1D40, 0x00B7, 0x00D7, 0x03A3, 0x03B8, 0x221A, 0x221E])
    return cps


def load_sc(path):
    if path.endswith(".ttc") or path.endswith(".otc"):
        for font in TTCollection(path).fonts:
            if font["name"].getDebugName(1) == "Noto Sans CJK SC":
                return font
        raise SystemExit(f"no 'Noto Sans CJK SC' face in {path}")
    return TTFont(path)


def rename(font):
    table = font["name"]
    version = table.getDebugName(5) or "Version unknown"
    names = {
        1: FAMILY, 2: "Regular", 3: f"{POSTSCRIPT};{version}", 4: f"{FAMILY} Regular",
        6: POSTSCRIPT, 16: FAMILY, 17: "Regular",
    }
    table.names = [n for n in table.names if n.nameID not in names and n.nameID not in (21, 22)]
    for name_id, value in names.items():
        table.setName(value, name_id, 3, 1, 0x409)
        table.setName(value, name_id, 1, 0, 0)
    table.setName(
        "Subset of Noto Sans CJK SC (GB2312 + punctuation) made for Attention Lab; "
        "a Modified Version under the SIL Open Font License 1.1.", 10, 3, 1, 0x409)
    if "CFF " in font:
        cff = font["CFF "].cff
        cff.fontNames = [POSTSCRIPT]
        top = cff.topDictIndex[0]
        top.FullName = f"{FAMILY} Regular"
        top.FamilyName = FAMILY


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SOURCE
    font = load_sc(source)
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.hinting = False
    options.desubroutinize = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted_codepoints())
    subsetter.subset(font)
    rename(font)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(OUT))
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.2f} MB, {len(font.getBestCmap())} code points)")


if __name__ == "__main__":
    main()
