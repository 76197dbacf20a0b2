"""The palette (issue 20): the node states stay apart for colour-blind students.

Colour vision deficiencies are simulated with Machado, Oliveira and Fernandes (2009) at full
severity, in linear RGB; distances are CIEDE2000 (Sharma, Wu and Dalal 2005) in CIE Lab
under D65. Both are written out here: the test must not trust the palette's own claims.
"""

import itertools

import numpy as np
import pytest

from viz import style

#: Machado et al.'s matrices at severity 1.0.
CVD = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}  # fmt: skip


def _linear(rgb):
    rgb = np.asarray(rgb, float)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _encoded(lin):
    lin = np.clip(lin, 0, 1)
    return np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)


def _rgb(hex_colour: str) -> np.ndarray:
    h = hex_colour.lstrip("#")[:6]
    return np.array([int(h[k : k + 2], 16) / 255 for k in (0, 2, 4)])


def simulate(rgb, vision: str) -> np.ndarray:
    if vision == "normal":
        return np.asarray(rgb, float)
    return _encoded(np.asarray(CVD[vision]) @ _linear(rgb))


def lab(rgb) -> np.ndarray:
    xyz = np.array(
        [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
         [0.0193339, 0.1191920, 0.9503041]]
    ) @ _linear(rgb)  # fmt: skip
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1, lab2) -> float:
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    h1, h2 = np.degrees(np.arctan2(b1, a1)) % 360, np.degrees(np.arctan2(b2, a2)) % 360
    dh = h2 - h1
    if c1 * c2 == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    d_l, d_c = l2 - l1, c2 - c1
    d_h = 2 * np.sqrt(c1 * c2) * np.sin(np.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (
        1
        - 0.17 * np.cos(np.radians(h_mean - 30))
        + 0.24 * np.cos(np.radians(2 * h_mean))
        + 0.32 * np.cos(np.radians(3 * h_mean + 6))
        - 0.20 * np.cos(np.radians(4 * h_mean - 63))
    )
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / np.sqrt(20 + (l_mean - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_mean, 1 + 0.015 * c_mean * t
    r_t = (
        -np.sin(np.radians(60 * np.exp(-(((h_mean - 275) / 25) ** 2))))
        * 2
        * np.sqrt(c_mean**7 / (c_mean**7 + 25**7))
    )
    terms = (d_l / s_l, d_c / s_c, d_h / s_h)
    return float(np.sqrt(terms[0] ** 2 + terms[1] ** 2 + terms[2] ** 2 + r_t * terms[1] * terms[2]))


@pytest.mark.parametrize(
    ("lab1", "lab2", "expected"),
    [  # Sharma, Wu and Dalal's test data, pairs 1, 7, 17 and 25
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ],
)
def test_ciede2000_matches_the_published_test_data(lab1, lab2, expected):
    assert ciede2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("vision", ["normal", *CVD])
def test_node_states_stay_apart_for_every_vision(vision):
    states = {"far": style.FAR, "near": style.NEAR, "settled": style.SETTLED}
    seen = {name: lab(simulate(_rgb(colour), vision)) for name, colour in states.items()}
    for (n1, c1), (n2, c2) in itertools.combinations(seen.items(), 2):
        assert ciede2000(c1, c2) >= 20, (vision, n1, n2)


def test_the_old_palette_would_have_failed():
    """The orange and greens before issue 20: far and near merge for deuteranopes."""
    far, near = (lab(simulate(_rgb(c), "deuteranopia")) for c in ("#f28e2b", "#8fd16a"))
    assert ciede2000(far, near) < 10


def test_settled_is_a_grey_between_black_and_the_roads():
    """Issue 52: black settled nodes merged into a blot on real cities; a mid grey keeps the
    settled region readable and apart from the roads."""
    settled, road = lab(_rgb(style.SETTLED)), lab(_rgb(style.ROAD))
    assert 35 <= settled[0] <= road[0] - 15  # lightness: not black, darker than a road
    assert ciede2000(settled, road) >= 15


def test_the_wasted_work_colours_stay_apart_from_the_states():
    """Issue 52: "relaxed once" light blue was close to the far state's light blue."""
    states = [lab(_rgb(c)) for c in (style.FAR, style.NEAR, style.SETTLED)]
    for colour in style.WORK_COLORS[1:2]:
        for state in states:
            assert ciede2000(lab(_rgb(colour)), state) >= 20
    for vision in CVD:  # and the work colours from each other, for every vision
        seen = [lab(simulate(_rgb(c), vision)) for c in style.WORK_COLORS[1:]]
        for c1, c2 in itertools.combinations(seen, 2):
            assert ciede2000(c1, c2) >= 10, vision
