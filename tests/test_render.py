"""The card renderer: every face and the back, in every look, deterministic for a seed."""

import numpy as np
import pytest

from vision.render import ALL_FACES, BACK, LOOKS, RenderParams, render_back, render_card


def test_there_are_54_distinct_faces():
    assert len(ALL_FACES) == 54
    assert len(set(ALL_FACES)) == 54
    assert {"red-7", "blue-skip", "green-reverse", "yellow-draw2", "wild", "wild-draw4"} <= set(
        ALL_FACES
    )


@pytest.mark.parametrize("look", LOOKS)
def test_every_face_and_the_back_render_in_every_look(look):
    images = [render_card(c, look, height=64) for c in ALL_FACES] + [render_back(height=64)]
    for img in images:
        assert img.dtype == np.uint8
        assert img.shape == (64, 41, 4)  # portrait, card aspect 56:87, BGRA
        assert img[32, 20, 3] == 255  # opaque inside the card
        assert img[0, 0, 3] < 128  # rounded corner is transparent
    # no two faces share their artwork
    flat = {img[..., :3].tobytes() for img in images}
    assert len(flat) == len(images)


def test_back_is_reachable_through_render_card():
    assert np.array_equal(render_card(BACK, height=80), render_back(height=80))


def test_same_seed_same_pixels_other_seed_other_pixels():
    a = render_card("green-6", height=120, seed=11)
    b = render_card("green-6", height=120, seed=11)
    c = render_card("green-6", height=120, seed=12)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.array_equal(render_back(height=90, seed=3), render_back(height=90, seed=3))


def test_six_and_nine_differ_beyond_a_half_turn():
    # 6 and 9 carry an underline, so a 9 is not a 6 turned upside down
    six = render_card("blue-6", height=160)[..., :3].astype(int)
    nine = render_card("blue-9", height=160)[..., :3].astype(int)
    assert np.abs(six - nine[::-1, ::-1]).mean() > 2


def test_colour_shows_in_the_card_field():
    red = render_card("red-3", height=160)[40, 8, :3]  # left field, away from the glyphs
    blue = render_card("blue-3", height=160)[40, 8, :3]
    assert red[2] > red[0] + 80  # BGR: red dominates
    assert blue[0] > blue[2] + 80


def test_unknown_card_and_bad_look_are_clear_errors():
    with pytest.raises(ValueError, match="unknown card 'purple-3'"):
        render_card("purple-3")
    with pytest.raises(ValueError, match="unknown look"):
        RenderParams(look="1970s")
    with pytest.raises(ValueError, match="too small"):
        render_card("red-1", height=4)


def test_italic_digits_lean_right_and_upright_stays_the_default():
    from dataclasses import replace

    import numpy as np

    from vision.render import RenderParams, random_params, render_card

    assert RenderParams().slant == 0.0 and random_params(np.random.default_rng(4), "classic").slant == 0.0
    p = replace(random_params(np.random.default_rng(4), "classic"), wear=0.0, gloss=0.0)

    def ink_lean(slant: float) -> float:
        art = render_card("red-1", height=400, rng=np.random.default_rng(1), params=replace(p, slant=slant))
        h, w = art.shape[:2]
        # the big glyph's outline is the darkest ink in the card's middle band
        mid = art[int(h * 0.3): int(h * 0.7), int(w * 0.2): int(w * 0.8), :3].astype(int).sum(axis=2)
        ys, xs = np.nonzero(mid < 120)
        top, bottom = xs[ys < np.median(ys)], xs[ys >= np.median(ys)]
        return float(top.mean() - bottom.mean())

    assert ink_lean(0.25) > ink_lean(0.0) + 0.03 * 400


def test_a_printing_can_set_its_digits_in_an_opencv_font_and_only_its_digits():
    from dataclasses import replace

    from models.crops import train_params
    from vision.render import DIGIT_FONTS, random_params

    p = replace(random_params(np.random.default_rng(5), "2010s"), wear=0.0, gloss=0.0)
    assert p.font == -1  # the table's and the evaluations' printings keep our own strokes

    def art(card, font):
        return render_card(card, height=300, rng=np.random.default_rng(2), params=replace(p, font=font)).astype(int)

    own = art("green-6", -1)
    faces = [art("green-6", f) for f in range(len(DIGIT_FONTS))]
    assert all(np.abs(f - own).sum() > 0.01 * own.size for f in faces)  # each face its own 6
    assert np.abs(faces[0] - faces[2]).sum() > 0.01 * own.size
    # a card with no digit looks the same whatever the font
    assert np.array_equal(art("red-skip", -1), art("red-skip", 3))
    assert np.array_equal(art("wild", -1), art("wild", 3))
    with pytest.raises(ValueError, match="font 99"):
        RenderParams(font=99)
    # training draws a font only when asked, and then from every face
    drawn = {train_params(np.random.default_rng(k), "2010s", fonts=1.0).font for k in range(60)}
    assert drawn == set(range(len(DIGIT_FONTS)))
    assert {train_params(np.random.default_rng(k), "2010s").font for k in range(20)} == {-1}
    a, b = train_params(np.random.default_rng(9), "classic"), train_params(np.random.default_rng(9), "classic", fonts=0.0)
    assert a == b


def test_a_printing_can_set_its_digits_in_a_truetype_face_the_size_of_our_own():
    from dataclasses import replace

    from models.crops import TYPEFACES, train_params, typefaces
    from vision.render import random_params

    files = typefaces()
    assert len(files) == len(TYPEFACES)
    p = replace(random_params(np.random.default_rng(5), "2010s"), wear=0.0, gloss=0.0)
    assert p.typeface == ""  # the table's and the evaluations' printings keep our own strokes

    def art(card, typeface=""):
        return render_card(card, height=300, rng=np.random.default_rng(2), params=replace(p, typeface=typeface))

    def ink_rows(a):  # rows of the centre glyph: white ink with its black outline in the oval
        h, w = a.shape[:2]
        mid = a[int(h * 0.2): int(h * 0.8), int(w * 0.35): int(w * 0.65), :3].astype(int).sum(axis=2)
        rows = np.nonzero((mid < 150).sum(axis=1) > 2)[0]
        return rows.max() - rows.min()

    own = art("blue-4")
    bold, serif = art("blue-4", files[TYPEFACES.index("DejaVuSans-Bold.ttf")]), art("blue-4", files[TYPEFACES.index("cmr10.ttf")])
    for face in (bold, serif):
        assert np.abs(face.astype(int) - own.astype(int)).sum() > 0.01 * own.size  # its own 4
        assert abs(ink_rows(face) - ink_rows(own)) < 0.15 * ink_rows(own)  # as tall as ours
    assert np.abs(bold.astype(int) - serif.astype(int)).sum() > 0.01 * own.size
    assert np.array_equal(art("red-skip"), art("red-skip", files[0]))  # no digit, no change
    with pytest.raises(ValueError, match="no such TrueType file"):
        RenderParams(typeface="/nowhere/face.ttf")
    # training sets a face only when asked, and then draws from every one
    drawn = {train_params(np.random.default_rng(k), "2010s", faces=1.0).typeface for k in range(150)}
    assert drawn == set(files)
    assert train_params(np.random.default_rng(9), "classic") == train_params(np.random.default_rng(9), "classic", faces=0.0)


def _red_inside_paper(a):
    """Share of the top-left index region's pixels enclosed by paper that are the field's red."""
    import cv2

    h, w = a.shape[:2]
    region = a[int(h * 0.03): int(h * 0.25), int(w * 0.03): int(w * 0.4), :3].astype(int)
    b, g, r = region[..., 0], region[..., 1], region[..., 2]
    paper = ((b > 200) & (g > 200) & (r > 200)).astype(np.uint8)
    contours, _ = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    inside = np.zeros_like(paper)
    # only what paper rings round, not the border's paper along the region's edge
    cv2.drawContours(inside, [c for c in contours if cv2.boundingRect(c)[0] > 0], -1, 1, -1)
    red = (r > 150) & (g < 110) & (b < 110)
    return (red & (inside > 0)).sum() / max(1, inside.sum())


def test_a_training_printing_can_draw_its_corner_index_as_other_prints_do():
    from dataclasses import replace

    from models.crops import corner_index, train_params
    from vision.render import random_params

    p = replace(random_params(np.random.default_rng(5), "2010s"), wear=0.0, gloss=0.0)
    assert (p.corner_rim, p.corner_scale, p.corner_tilt) == (0.0, 1.0, 0.0)  # as our print

    def art(card, **kw):
        return render_card(card, height=300, params=replace(p, **kw))

    # hollow: the 7 in the corner is the card's red inside a paper rim, not paper itself
    assert _red_inside_paper(art("red-7")) < 0.1
    assert _red_inside_paper(art("red-7", corner_rim=2.5)) > 0.3

    def index_height(**kw):  # rows where the corner's 7 and 1 differ (the rest is alike)
        a, b = art("red-7", **kw), art("red-1", **kw)
        h, w = a.shape[:2]
        rows = np.nonzero(np.abs(a[: int(h * 0.3), : w // 2].astype(int) - b[: int(h * 0.3), : w // 2]).sum(axis=(1, 2)))[0]
        return rows.max() - rows.min()

    assert 1.25 < index_height(corner_scale=1.4) / index_height() < 1.55
    # a wild's corner oval turns; a card with no oval in its corner does not
    assert not np.array_equal(art("wild", corner_tilt=30), art("wild"))
    assert np.array_equal(art("red-7", corner_tilt=30), art("red-7"))
    with pytest.raises(ValueError, match="corner_rim"):
        RenderParams(corner_rim=-1)
    with pytest.raises(ValueError, match="corner_scale"):
        RenderParams(corner_scale=3)
    with pytest.raises(ValueError, match="corner_tilt"):
        RenderParams(corner_tilt=120)
    # training draws other corners only when asked, then hollow about half the time
    drawn = [train_params(np.random.default_rng(k), "2010s", corners=1.0) for k in range(40)]
    assert all(0.9 <= d.corner_scale <= 1.4 and -40 <= d.corner_tilt <= 40 for d in drawn)
    assert 10 < sum(d.corner_rim > 0 for d in drawn) < 30
    assert corner_index(np.random.default_rng(1), p) == corner_index(np.random.default_rng(1), p)
    assert train_params(np.random.default_rng(9), "classic") == train_params(np.random.default_rng(9), "classic", corners=0.0)


def test_a_corner_readers_bank_can_keep_hollow_indices_to_the_wild_cards():
    from models.crops import CLASSES
    from models.train_classifier import render_bank

    every = render_bank(9, 2, height=96, progress=False, wide=0.6, corners=0.5)
    wilds = render_bank(9, 2, height=96, progress=False, wide=0.6, corners=0.5, hollow="wild")
    differ = {CLASSES[ci] for (ci, a), (_, b) in zip(every, wilds, strict=True) if not np.array_equal(a, b)}
    # the wilds keep their rims (the same draws); some coloured faces lose theirs
    assert differ and not any(c.startswith("wild") for c in differ)
    plain = render_bank(9, 2, height=96, progress=False, wide=0.6)
    assert any(not np.array_equal(a, b) for (ci, a), (_, b) in zip(plain, wilds, strict=True)
               if CLASSES[ci].startswith("wild"))  # and a wild's corner is drawn as asked
