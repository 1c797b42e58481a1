"""End-to-end tests of the ViewSimulator server (hrpsim-view), through CORBA from Python.

The scene: a camera robot EYE whose root link is at the origin carrying six VisionSensors
(sensorIds 0..5 of types COLOR 96x72, MONO, DEPTH, COLOR_DEPTH, MONO_DEPTH and NONE, 80x60, all
fieldOfView 0.9, clip 0.1..10) that look along the world's -z, and an environment with a
directional light along -z (intensity 1, no ambient), a plane whose front face is at z = -2
(diffuse 0.2 0.3 0.4) and a unit cube centred at (0.3, 0.2, -1.4) (diffuse 0.8 0.4 0.2): only the
cube's front face (z = -0.9, x in [-0.2, 0.8], y in [-0.3, 0.7]) is seen, lit head-on, so VRML's
lighting gives exactly its diffuse colour.

Expected pixels come from the pinhole model: focal length f = (W / 2) / tan(fov / 2) in pixels
(fieldOfView is horizontal), u = W / 2 + f x / -z, v = H / 2 - f y / -z, pixel (i, j) sampled at
its centre (i + 0.5, j + 0.5), rows top first. Tolerances: silhouettes +-1 px, colours 2/255
(8-bit rounding), depth 1 mm (a float's z at 2 m is good to 1e-6 m); MONO must equal OpenHRP's
luminance floor(0.299 R + 0.587 G + 0.114 B) of the colour image exactly.
"""

import math
from pathlib import Path

import numpy as np
import pytest
from omniORB import CORBA

import hrpsim
from hrpsim import OpenHRP
from hrpsim.images import image_arrays
from hrpsim.models import OPENHRP_PROTOS

FOV = 0.9
I3 = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]

VISION_PROTO = """PROTO VisionSensor [
  exposedField SFVec3f translation 0 0 0
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFInt32 sensorId -1
  exposedField SFString type "NONE"
  exposedField SFInt32 width 320
  exposedField SFInt32 height 240
  exposedField SFFloat fieldOfView 0.785398
  exposedField SFFloat frontClipDistance 0.01
  exposedField SFFloat backClipDistance 10
  exposedField SFFloat frameRate 30
  exposedField MFNode children [ ]
] { Transform { translation IS translation rotation IS rotation children IS children } }
"""

TYPES = ["COLOR", "MONO", "DEPTH", "COLOR_DEPTH", "MONO_DEPTH", "NONE"]


def eye_model():
    sensors = "\n".join(
        '        DEF CAM_%s VisionSensor { sensorId %d type "%s" width %d height %d '
        'fieldOfView %r frontClipDistance 0.1 backClipDistance 10 frameRate %d }'
        % (t, i, t, 96 if t == "COLOR" else 80, 72 if t == "COLOR" else 60, FOV, 10 + i)
        for i, t in enumerate(TYPES))
    return ("#VRML V2.0 utf8\n" + OPENHRP_PROTOS + VISION_PROTO + """
DEF EYE Humanoid {
  name "EYE"
  humanoidBody [
    DEF EYE_ROOT Joint {
      jointType "fixed"
      children [
%s
      ]
    }
  ]
}
""" % sensors)


SCENE = """#VRML V2.0 utf8
DirectionalLight { direction 0 0 -1 intensity 1 ambientIntensity 0 }
Transform { translation 0 0 -2.05 children Shape {
  appearance Appearance { material Material { diffuseColor 0.2 0.3 0.4 } }
  geometry Box { size 40 40 0.1 } } }
Transform { translation 0.3 0.2 -1.4 children Shape {
  appearance Appearance { material Material { diffuseColor 0.8 0.4 0.2 } }
  geometry Box { size 1 1 1 } } }
"""


@pytest.fixture(scope="module")
def client(servers):
    if not servers.has("ViewSimulatorFactory"):
        pytest.fail("hrpsim-view was not started (is it built in %s?)"
                    % hrpsim.paths.default_bin_dir(), pytrace=False)
    return servers.client


@pytest.fixture(scope="module")
def factory(client):
    return client.resolve("ViewSimulatorFactory", OpenHRP.ViewSimulatorFactory)


@pytest.fixture(scope="module")
def bodies(client, tmp_path_factory):
    d = tmp_path_factory.mktemp("vision-models")
    (d / "eye.wrl").write_text(eye_model())
    (d / "scene.wrl").write_text(SCENE)
    return {"eye": client.load_body(d / "eye.wrl"), "scene": client.load_body(d / "scene.wrl")}


@pytest.fixture
def make_vs(factory, bodies):
    made = []

    def make():
        vs = factory.create()
        made.append(vs)
        vs.registerCharacter("scene", bodies["scene"])
        vs.registerCharacter("eye", bodies["eye"])
        return vs

    yield make
    for vs in made:
        try:
            vs.destroy()
        except CORBA.OBJECT_NOT_EXIST:
            pass


@pytest.fixture
def vs(make_vs):
    return make_vs()


def cameras_by_type(vs):
    cams = vs.getCameraSequenceOf("eye")
    return {TYPES[i]: c for i, c in enumerate(cams)}


def eye_at(x, y=0.0, z=0.0):
    return OpenHRP.WorldState(0.0, [OpenHRP.CharacterPosition(
        "eye", [OpenHRP.LinkPosition([x, y, z], I3)])], [])


def cube_masks(w, h, dx=0.0):
    """(inside, outside) pixel masks of the cube's front face for a camera moved by dx."""
    f = w / 2 / math.tan(FOV / 2)
    z = 0.9
    u0, u1 = w / 2 + f * (-0.2 - dx) / z, w / 2 + f * (0.8 - dx) / z
    v0, v1 = h / 2 - f * 0.7 / z, h / 2 - f * -0.3 / z
    cx = np.arange(w)[None, :] + 0.5
    cy = np.arange(h)[:, None] + 0.5
    inside = (cx > u0 + 1) & (cx < u1 - 1) & (cy > v0 + 1) & (cy < v1 - 1)
    outside = (cx < u0 - 1) | (cx > u1 + 1) | (cy < v0 - 1) | (cy > v1 + 1)
    return inside, outside


def expected_rgb(colour):
    return np.array([round(255 * c) for c in colour])


def check_colour(rgb, dx=0.0):
    h, w, _ = rgb.shape
    inside, outside = cube_masks(w, h, dx)
    assert inside.sum() > 100 and outside.sum() > 100
    err_in = np.abs(rgb[inside].astype(int) - expected_rgb((0.8, 0.4, 0.2))).max()
    err_out = np.abs(rgb[outside].astype(int) - expected_rgb((0.2, 0.3, 0.4))).max()
    assert err_in <= 2 and err_out <= 2, (err_in, err_out)


def check_depth(depth, dx=0.0):
    h, w = depth.shape
    inside, outside = cube_masks(w, h, dx)
    assert np.abs(depth[inside] - 0.9).max() < 1e-3
    assert np.abs(depth[outside] - 2.0).max() < 1e-3


def test_cameras_and_parameters(vs):
    cams = vs.getCameraSequence()
    assert len(cams) == 6
    assert len(vs.getCameraSequenceOf("scene")) == 0
    for i, cam in enumerate(vs.getCameraSequenceOf("eye")):
        p = cam.getCameraParameter()
        assert p.sensorId == i
        assert str(p.type) == TYPES[i]
        assert p.sensorName == "CAM_" + TYPES[i] and p.defName == p.sensorName
        assert (p.width, p.height) == ((96, 72) if i == 0 else (80, 60))
        assert p.fieldOfView == pytest.approx(FOV, abs=1e-6)
        assert p.frontClipDistance == pytest.approx(0.1, abs=1e-7)
        assert p.backClipDistance == pytest.approx(10.0)
        assert p.frameRate == pytest.approx(10 + i)


def test_image_formats(vs):
    cams = cameras_by_type(vs)
    expect = {"COLOR": (OpenHRP.ARGB, "long"), "MONO": (OpenHRP.GRAY, "octet"),
              "DEPTH": (OpenHRP.DEPTH, "float"), "COLOR_DEPTH": (OpenHRP.ARGB, "long+float"),
              "MONO_DEPTH": (OpenHRP.GRAY, "octet+float"), "NONE": (OpenHRP.ARGB, "")}
    for t, (fmt, data) in expect.items():
        img = cams[t].getImageData()
        n = img.width * img.height
        assert img.format == fmt, t
        assert len(img.longData) == (n if "long" in data else 0), t
        assert len(img.octetData) == (n if "octet" in data else 0), t
        assert len(img.floatData) == (n if "float" in data else 0), t
    # ARGB longs carry alpha 0xff
    img = cams["COLOR"].getImageData()
    assert all((v & 0xFF000000) == 0xFF000000 for v in img.longData[:10])


def test_colour_projection_and_depth(vs):
    cams = cameras_by_type(vs)
    check_colour(image_arrays(cams["COLOR"].getImageData()).color)
    img = image_arrays(cams["COLOR_DEPTH"].getImageData())
    check_colour(img.color)
    check_depth(img.depth)
    check_depth(image_arrays(cams["DEPTH"].getImageData()).depth)
    check_depth(image_arrays(cams["MONO_DEPTH"].getImageData()).depth)


def test_mono_is_luminance(vs):
    cams = cameras_by_type(vs)
    rgb = image_arrays(cams["COLOR_DEPTH"].getImageData()).color.astype(np.float64)
    mono = image_arrays(cams["MONO"].getImageData()).mono
    lum = np.floor(0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2])
    assert np.array_equal(mono, lum.astype(np.uint8))
    assert len(np.unique(mono)) >= 2  # both the cube and the plane are in the picture


def test_update_scene_moves_the_camera(vs):
    cams = cameras_by_type(vs)
    before = image_arrays(cams["COLOR_DEPTH"].getImageData())
    vs.updateScene(eye_at(0.1))
    after = image_arrays(cams["COLOR_DEPTH"].getImageData())
    assert not np.array_equal(before.color, after.color)
    check_colour(after.color, dx=0.1)
    check_depth(after.depth, dx=0.1)
    # moving towards the plane by 0.3 m: the plane is 1.7 m away (the top-left pixel sees it)
    vs.updateScene(eye_at(0.0, 0.0, -0.3))
    depth = image_arrays(cams["DEPTH"].getImageData()).depth
    assert abs(float(depth[0, 0]) - 1.7) < 1e-3


def test_bad_input_keeps_state(vs, bodies):
    cams = cameras_by_type(vs)
    vs.updateScene(eye_at(0.1))
    before = cams["COLOR"].getImageData().longData
    bad = [
        OpenHRP.WorldState(0.0, [OpenHRP.CharacterPosition("nobody", [])], []),
        OpenHRP.WorldState(0.0, [OpenHRP.CharacterPosition("eye", [])], []),
        OpenHRP.WorldState(0.0, [OpenHRP.CharacterPosition(
            "eye", [OpenHRP.LinkPosition([float("nan"), 0.0, 0.0], I3)])], []),
    ]
    for ws in bad:
        with pytest.raises(CORBA.BAD_PARAM):
            vs.updateScene(ws)
    with pytest.raises(CORBA.BAD_PARAM):
        vs.getCameraSequenceOf("nobody")
    with pytest.raises(CORBA.BAD_PARAM):
        vs.registerCharacter("eye", bodies["eye"])
    assert cams["COLOR"].getImageData().longData == before


def test_two_instances_identical(make_vs):
    a, b = make_vs(), make_vs()
    for vs in (a, b):
        vs.updateScene(eye_at(0.05, -0.02))
    ia = cameras_by_type(a)["COLOR_DEPTH"].getImageData()
    ib = cameras_by_type(b)["COLOR_DEPTH"].getImageData()
    assert ia.longData == ib.longData
    assert ia.floatData == ib.floatData


def test_textured_face(client, factory, tmp_path):
    """A unlit quad textured with four coloured blocks shows each block in its own quarter."""
    from PIL import Image

    blocks = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
    pixels = np.array([[blocks[(y // 8) * 2 + x // 8] for x in range(16)] for y in range(16)],
                      dtype=np.uint8)
    Image.fromarray(pixels, "RGB").save(tmp_path / "blocks.png")
    (tmp_path / "quad.wrl").write_text("""#VRML V2.0 utf8
Shape {
  appearance Appearance { texture ImageTexture { url "blocks.png" } }
  geometry IndexedFaceSet {
    coord Coordinate { point [-1 -1 -3, 1 -1 -3, 1 1 -3, -1 1 -3] }
    coordIndex [0 1 2 3 -1]
    texCoord TextureCoordinate { point [0 0, 1 0, 1 1, 0 1] }
    texCoordIndex [0 1 2 3 -1] } }
""")
    (tmp_path / "eye.wrl").write_text(eye_model())
    loader = client.model_loader()
    opt = OpenHRP.ModelLoader.ModelLoadOption(True, [], OpenHRP.ModelLoader.AABB_NUM)
    quad = loader.loadBodyInfoEx(hrpsim.file_url(tmp_path / "quad.wrl"), opt)
    eye = client.load_body(tmp_path / "eye.wrl")
    vs = factory.create()
    try:
        vs.registerCharacter("quad", quad)
        vs.registerCharacter("eye", eye)
        img = image_arrays(cameras_by_type(vs)["COLOR"].getImageData()).color
        h, w, _ = img.shape
        f = w / 2 / math.tan(FOV / 2)
        for (x, y), colour in zip([(-0.5, 0.5), (0.5, 0.5), (-0.5, -0.5), (0.5, -0.5)], blocks):
            u, v = int(w / 2 + f * x / 3), int(h / 2 - f * y / 3)
            assert np.abs(img[v, u].astype(int) - colour).max() <= 2, (x, y, img[v, u])
    finally:
        vs.destroy()


def test_rgb_color_format(client, bodies, make_vs):
    """hrpsim-view --color-format rgb: colour as PixelFormat RGB (3 bytes per pixel in
    octetData), the same pixels as the ARGB longs of the default server; depth unchanged."""
    import subprocess
    import time
    import uuid

    exe = Path(hrpsim.paths.default_bin_dir()) / "hrpsim-view"
    name = "ViewRGB-%s" % uuid.uuid4().hex[:8]
    proc = subprocess.Popen([str(exe), "-ORBInitRef", "NameService=" + client.naming,
                             "--color-format", "rgb", "--name", name],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        factory = None
        deadline = time.monotonic() + 60
        while factory is None and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                factory = client.resolve(name, OpenHRP.ViewSimulatorFactory)
            except hrpsim.HrpsimError:
                time.sleep(0.2)
        assert factory is not None, "%s did not bind %s" % (exe, name)
        rgb_vs = factory.create()
        rgb_vs.registerCharacter("scene", bodies["scene"])
        rgb_vs.registerCharacter("eye", bodies["eye"])
        argb_cams = cameras_by_type(make_vs())
        rgb_cams = cameras_by_type(rgb_vs)
        for t in ("COLOR", "COLOR_DEPTH"):
            a, b = argb_cams[t].getImageData(), rgb_cams[t].getImageData()
            assert b.format == OpenHRP.RGB and len(b.longData) == 0
            assert len(b.octetData) == 3 * b.width * b.height
            ia, ib = image_arrays(a), image_arrays(b)
            assert np.array_equal(ia.color, ib.color)
            check_colour(ib.color)
            if t == "COLOR_DEPTH":
                assert np.array_equal(ia.depth, ib.depth)
        # the other types are as before
        assert rgb_cams["MONO"].getImageData().format == OpenHRP.GRAY
        rgb_vs.destroy()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
