"""YAML scalars typed as ``rcl`` types the values of a parameters file: a quoted scalar is a
string; an unquoted one is a bool (``true``/``false``, ``yes``/``no``, ``on``/``off`` and their
capitalised forms), else an integer (C ``strtol``: ``10``, ``0x1f``, ``017`` octal), else a
double (C ``strtod``: ``1.0``, ``1e-3``, ``.inf``; out-of-range values are not doubles), else a
string."""

import math
import re

from .param import Type

BOOL, INTEGER, DOUBLE, STRING = Type.BOOL, Type.INTEGER, Type.DOUBLE, Type.STRING

_TRUE = frozenset("Y y yes Yes YES true True TRUE on On ON".split())
_FALSE = frozenset("N n no No NO false False FALSE off Off OFF".split())
_YAML_FLOAT = {
    ".nan": math.nan,
    ".NaN": math.nan,
    ".NAN": math.nan,
}
for _sign, _value in (("", math.inf), ("+", math.inf), ("-", -math.inf)):
    for _text in (".inf", ".Inf", ".INF"):
        _YAML_FLOAT[_sign + _text] = _value
_INT = re.compile(r"\s*[+-]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
_DECIMAL = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_HEX_FLOAT = re.compile(r"\s*[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?\d+)?")
_SPECIAL = re.compile(r"\s*[+-]?(inf|infinity|nan)", re.IGNORECASE)
_INT64 = (-(2**63), 2**63 - 1)
_SMALLEST_NORMAL = 2.2250738585072014e-308


def scalar_value(text, quoted):
    """A YAML scalar typed as ``rcl`` types it (see the module docstring).

    Args:
        text: the scalar's text.
        quoted: it was single- or double-quoted.

    Returns:
        tuple: ``(ParameterType value, value)``; bool, int, float or str.
    """
    if quoted:
        return STRING, text
    if text in _TRUE:
        return BOOL, True
    if text in _FALSE:
        return BOOL, False
    if _INT.fullmatch(text):
        body = text.strip()
        sign = -1 if body.startswith("-") else 1
        digits = body.lstrip("+-")
        if digits[:2] in ("0x", "0X"):
            value = int(digits[2:], 16)
        elif digits.startswith("0") and len(digits) > 1:
            value = int(digits[1:], 8)
        else:
            value = int(digits)
        value *= sign
        if _INT64[0] <= value <= _INT64[1]:
            return INTEGER, value
        # out of range: strtol fails (ERANGE), strtod is tried
    if text in _YAML_FLOAT:
        return DOUBLE, _YAML_FLOAT[text]
    value = _strtod(text)
    if value is not None:
        return DOUBLE, value
    return STRING, text


def _strtod(text):
    """C strtod of the whole text, None when it fails or sets ERANGE."""
    body = text.strip()
    if _SPECIAL.fullmatch(text):
        return float(body)  # inf, infinity, nan in any case, signed
    if _HEX_FLOAT.fullmatch(text):
        sign = -1.0 if body.startswith("-") else 1.0
        mantissa = body.lstrip("+-")
        if "p" not in mantissa.lower():
            mantissa += "p0"
        try:
            value = sign * float.fromhex(mantissa)
        except OverflowError:
            return None
        digits = mantissa[2:].lower().split("p")[0]
    elif _DECIMAL.fullmatch(text):
        value = float(body)
        digits = re.split("[eE]", body)[0]
    else:
        return None
    if math.isinf(value):
        return None  # overflow: ERANGE
    if value == 0.0 and re.search("[1-9a-fA-F]", digits):
        return None  # underflow to zero: ERANGE
    if 0.0 < abs(value) < _SMALLEST_NORMAL:
        return None  # subnormal: ERANGE
    return value


__all__ = ["scalar_value"]
