"""hrpsim.local: the simulation core (core/core.h) inside this Python process.

``hrpsim.Simulation(backend="local")`` runs on ``LocalBackend``: no naming service, no servers,
no CORBA (omniORB is not imported on this path). Models are loaded with
``hs_loadBodyWithImages``, which gives the body the dynamics server simulates bit for bit
(core.h) with its texture images, so the cameras draw the same textured body as the view
server (one load for the dynamics and the cameras), and every Simulation call
becomes the core call the DynamicsSimulator servant makes for the same request, in the same
order, so the same script gives the same arrays as the server back end, bit for bit
(tests/e2e/test_local.py).

The binding is cffi in API mode: ``_hrpsim_core``, a compiled extension that CMake builds from
python/hrpsim/_core_build.py into ``build/python/`` (linked with the core's static libraries;
nothing to install). ``core_module()`` finds it: an installed ``hrpsim._hrpsim_core`` first,
else ``$HRPSIM_CORE_MODULE_DIR``, else ``<repo>/build/python`` (the editable install of
tools/bootstrap.sh).

``LocalSim`` (``sim.local``) gives the core's state as NumPy arrays that view its memory
without copies: read-only (writing would bypass the core: write through the setters). A view
keeps showing the same simulation, updated in place by every step and setter, as long as the
view lives (it keeps the C simulation alive); after ``reset()`` or ``close()`` a new world is
built, and views taken before show the old, discarded world's last state (stale): take them
again.
"""

import importlib
import importlib.machinery
import importlib.util
import os
import sys

import numpy as np

from . import paths
from ._orb import HrpsimError
from .limits import joint_limit_bits
from . import core_facts
from .simulation import Runaway, _Model

__all__ = ["CoreError", "LocalBackend", "LocalSim", "core_module", "load_body",
           "set_log_level"]

_MODULE = "_hrpsim_core"
_core = None


def core_module():
    """The cffi extension (``ffi``, ``lib``), imported on first use; ImportError saying how to
    build it when it is missing."""
    global _core
    if _core is not None:
        return _core
    try:
        _core = _quiet(importlib.import_module("hrpsim." + _MODULE))
        return _core
    except ImportError:
        pass
    dirs = [os.environ.get("HRPSIM_CORE_MODULE_DIR"), str(paths.REPO_ROOT / "build" / "python")]
    for d in filter(None, dirs):
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(d, _MODULE + suffix)
            if os.path.exists(path):
                spec = importlib.util.spec_from_file_location(_MODULE, path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                sys.modules.setdefault(_MODULE, module)
                _core = _quiet(module)
                return module
    raise ImportError("the local back end needs the extension %s, built by CMake into "
                      "<repo>/build/python with cffi in the repository's .venv: run "
                      "tools/bootstrap.sh (searched: %s)"
                      % (_MODULE, ", ".join(filter(None, dirs))))


def _quiet(module):
    """The core's messages from warnings up (its info lines, "registered character ...", are
    the servers' log, not a script's output; set_log_level("info") brings them back)."""
    module.lib.hsu_setLogLevel(module.lib.hsLOG_WARNING)
    return module


_LOG_LEVELS = ("debug", "info", "warning", "error")


def set_log_level(level):
    """The least important message the core prints on stderr in this process: "debug",
    "info", "warning" (the default here) or "error". Returns the level it replaces."""
    lib = core_module().lib
    was = lib.hsu_setLogLevel(getattr(lib, "hsLOG_" + level.upper()))
    return _LOG_LEVELS[was]


class CoreError(HrpsimError):
    """An error the core reported (an hsError) that is neither a refused request nor a model
    that does not load (those raise the hrpsim.errors classes the server back ends raise): no
    memory, a failed step. ``code`` (hstError, negative), ``message``, and ``file``, ``line``
    and ``column`` when it names a place in a file."""

    def __init__(self, code, message, file="", line=0, column=0):
        super().__init__(_located(message, file, line, column))
        self.code = code
        self.file = file
        self.line = line
        self.column = column


def _located(message, file, line, column):
    """"file:line:column: message" with as much of the location as is known (the core's
    hsu_formatError, which the servers' messages use)."""
    if not file:
        return message
    if line and column:
        return "%s:%d:%d: %s" % (file, line, column, message)
    if line:
        return "%s:%d: %s" % (file, line, message)
    return "%s: %s" % (file, message)


def _refusal(code):
    """The hrpsim.errors class a refused request raises, as on the server back ends (the
    servers turn the same hsError codes into the CORBA exceptions errors.py translates), or
    None for an error that is not a refusal."""
    from . import errors
    return {core_facts.error_code("INVALID"): errors.BadArgument,
            core_facts.error_code("ORDER"): errors.CallOrderError,
            core_facts.error_code("UNSUPPORTED"): errors.Unsupported}.get(code)


def _raise(ffi, err, code, what):
    """Raise the error err records (then clear it: the core records an error only into an
    hsError whose code is 0, so code 0 is kept between calls): a refused request (a bad
    argument, a call out of order) as the server back ends raise it, "<what>: <the core's
    message>" with ``what`` the servant's operation name; anything else as CoreError."""
    message = ffi.string(err.message).decode(errors="replace") or ("%s failed (%d)" % (what, code))
    file, line = ffi.string(err.file).decode(errors="replace"), err.line
    column = err.column
    _clear(err)
    kind = _refusal(code)
    if kind is not None and not line:
        raise kind("%s: %s" % (what, message), what)
    raise CoreError(code, message, file, line, column)


def _raise_model(ffi, err, path):
    """Raise the model error err records (hs_loadBody failed) as the ModelLoader's
    ModelLoaderException reaches a server back end: hrpsim.errors.ModelError (or
    ModelFileNotFound), "file:line:column: problem"."""
    from .errors import model_error
    message = ffi.string(err.message).decode(errors="replace") or "cannot load the model"
    file = ffi.string(err.file).decode(errors="replace")
    line, column = err.line, err.column
    _clear(err)
    # the text as the ModelLoader words it (hsu_formatError); the attribute names the file
    raise model_error(_located(message, file, line, column), file or path, line, column,
                      message)


def _clear(err):
    err.code = 0
    err.message[0] = b"\0"
    err.file[0] = b"\0"
    err.line = 0
    err.column = 0


class _BodyHold:
    """Frees an in-process body once nothing needs it any more: neither its _Body nor a
    simulation that borrows it. The last of them frees it, in whatever order they go (Python's
    cycle collector finalises the objects of one garbage cycle in no set order, so a simulation
    and its bodies may be finalised either way round)."""

    def __init__(self, lib, ptr):
        self.lib, self.ptr = lib, ptr
        self.users = 1  # the _Body; each simulation that borrows it adds one

    def drop(self, _p=None):
        """One user is done with the body; the last frees it."""
        self.users -= 1
        if self.users == 0:
            self.lib.hs_freeBody(self.ptr)
            self.ptr = None


class _Body:
    """A model loaded in process with its texture images (hs_loadBodyWithImages: the body the
    dynamics server simulates, plus the pixels its cameras draw); freed when dropped unless a
    simulation took it."""

    def __init__(self, url, path):
        core = core_module()
        self.ffi, self.lib = core.ffi, core.lib
        err = self.ffi.new("hsError *")
        ptr = self.lib.hs_loadBodyWithImages(path.encode(), err)
        if ptr == self.ffi.NULL:
            _raise_model(self.ffi, err, path)
        self.url = url
        self.path = path
        self._hold = _BodyHold(self.lib, ptr)
        self._ptr = self.ffi.gc(ptr, self._hold.drop)
        # names and joints, read through a throwaway simulation (the core's accessors)
        probe = LocalSim()
        ch = probe.add_character("probe", self)
        self.link_names = [probe.link_name(ch, k) for k in range(probe.link_count(ch))]
        self.parents = [probe.lib.hs_linkParent(probe.ptr, ch, k)
                        for k in range(len(self.link_names))]
        self.joint_link_index = list(probe.joint_links(ch))
        self.sensors = [(probe.sensor_name(ch, s), probe.lib.hs_sensorType(probe.ptr, ch, s))
                        for s in range(probe.lib.hs_sensorCount(probe.ptr, ch))]
        # links with a 1-dof joint and a jointId (what "every joint" means), the initial root pose
        self.one_dof_joints = [self.link_names[k] for k in self.joint_link_index
                               if k >= 0 and probe.lib.hs_hasJoint(probe.ptr, ch, k)]
        self.root_pose = probe.get_link_data(ch, 0, probe.lib.hsDATA_ABS_TRANSFORM)
        self.root_joint = self.ffi.string(probe.lib.hs_jointType(probe.ptr, ch, 0)).decode()
        probe.close()
        # BodyInfo.info's strings: load warnings, a URDF's declared sensor noise, ...
        self.info = [_text(self.ffi, ptr.info[i]) for i in range(ptr.ninfo)]



def load_body(url):
    """Load a model file (a path or file: URL) in process, as the ModelLoader serves it."""
    from . import file_url
    url = file_url(url)
    if url.startswith("hrpsim-primitive:"):
        return _Body(url, url)  # built in C from its parameters (model/model_primitive.c)
    if not url.startswith("file://"):
        raise ValueError("the local back end loads files only, got %r" % url)
    return _Body(url, _url_path(url))


def mjcf_scene(url):
    """The parts of an MJCF scene file (a path or file: URL): its top-level bodies' names, in
    file order (what ``URL#NAME`` selects), and whether its worldbody has geoms of its own
    (``URL#world``, an environment). Raises CoreError naming file:line for a bad file."""
    from . import file_url
    core = core_module()
    ffi, lib = core.ffi, core.lib
    path = _url_path(file_url(url))
    err = ffi.new("hsError *")
    world = ffi.new("int *")
    size = 1 << 16
    while True:
        names = ffi.new("char[]", size)
        n = lib.hs_mjcfScene(path.encode(), names, size, world, err)
        if n >= 0 or err.code != lib.hsE_INVALID or size >= 1 << 26:
            break
        size *= 16  # names did not fit
        _clear(err)
    if n < 0:
        _raise(ffi, err, n, "reading the scene %s" % path)
    text = ffi.unpack(names, size).split(b"\0")[:n]
    return [t.decode() for t in text], bool(world[0])


def describe_body(url):
    """The viewer's body description (viewer/scene.py ``body_description``) of a model file,
    loaded in process with its texture images (hs_loadBodyWithImages): what `hrpsim run`
    reads through the ModelLoader's getBodyInfoEx for models.json.gz, the same numbers. Raises
    hrpsim.errors.ModelError for a model that does not load."""
    from . import file_url
    from .viewer.scene import body_description
    url = file_url(url)
    core = core_module()
    ffi, lib = core.ffi, core.lib
    path = url if url.startswith("hrpsim-primitive:") else _url_path(url)
    err = ffi.new("hsError *")
    ptr = lib.hs_loadBodyWithImages(path.encode(), err)
    if ptr == ffi.NULL:
        _raise_model(ffi, err, path)
    body = ffi.gc(ptr, lib.hs_freeBody)
    return body_description(_BodyInfo(ffi, lib, body), url=url)


def _text(ffi, ptr):
    return ffi.string(ptr).decode() if ptr != ffi.NULL else ""


def _seq(ffi, ptr, n, dtype):
    """n numbers at ptr as a NumPy array (a copy)."""
    if n <= 0 or ptr == ffi.NULL:
        return np.zeros(0, dtype=dtype)
    size = np.dtype(dtype).itemsize
    return np.frombuffer(ffi.buffer(ptr, n * size), dtype=dtype).copy()


class _BodyInfo:
    """An hsBody read as OpenHRP's BodyInfo attributes (the fields body_description reads), as
    server/common/body_info.cpp converts it for the ModelLoader."""

    def __init__(self, ffi, lib, body):
        from types import SimpleNamespace as NS
        b = body
        f4, i4 = np.float32, np.int32

        def refs(ptr, n):
            return [NS(shapeIndex=ptr[i].shape, transformMatrix=list(ptr[i].T),
                       inlinedShapeTransformMatrixIndex=ptr[i].inlineMatrix)
                    for i in range(n)]

        def sensor(s):
            return NS(type=_text(ffi, lib.hs_sensorTypeName(s.type)), name=_text(ffi, s.name),
                      id=s.id, translation=list(s.translation), rotation=list(s.rotation),
                      specValues=_seq(ffi, s.specValues, s.nspecValue, f4).tolist(),
                      shapeIndices=refs(s.shapeRefs, s.nshapeRef))

        def light(li):
            return NS(name=_text(ffi, li.name), type=li.type, transformMatrix=list(li.T),
                      ambientIntensity=li.ambientIntensity, attenuation=list(li.attenuation),
                      color=list(li.color), intensity=li.intensity, location=list(li.location),
                      on=bool(li.on), radius=li.radius, direction=list(li.direction),
                      beamWidth=li.beamWidth, cutOffAngle=li.cutOffAngle)

        self.name, self.url = _text(ffi, b.name), _text(ffi, b.url)
        self.links = []
        for k in range(b.nlink):
            lk = b.links[k]
            self.links.append(NS(
                name=_text(ffi, lk.name), parentIndex=lk.parent,
                jointType=_text(ffi, lk.jointTypeName), jointId=lk.jointId,
                jointValue=lk.jointValue, mass=lk.mass, jointAxis=list(lk.axis),
                translation=list(lk.translation), rotation=list(lk.rotation),
                shapeIndices=refs(lk.shapeRefs, lk.nshapeRef),
                sensors=[sensor(b.sensors[lk.sensorAdr + i]) for i in range(lk.nsensor)],
                lights=[light(b.lights[lk.lightAdr + i]) for i in range(lk.nlight)]))
        self.shapes = [NS(primitiveType=s.primitive,
                          primitiveParameters=_seq(ffi, s.params, s.nparam, f4).tolist(),
                          vertices=_seq(ffi, s.vertices, 3 * s.nvertex, f4),
                          triangles=_seq(ffi, s.triangles, 3 * s.ntriangle, i4),
                          appearanceIndex=s.appearance)
                       for s in (b.shapes[i] for i in range(b.nshape))]
        self.appearances = [NS(
            materialIndex=a.material, normals=_seq(ffi, a.normals, 3 * a.nnormal, f4),
            normalIndices=_seq(ffi, a.normalIndices, a.nnormalIndex, i4),
            normalPerVertex=bool(a.normalPerVertex), solid=bool(a.solid),
            creaseAngle=a.creaseAngle, colors=_seq(ffi, a.colors, 3 * a.ncolor, f4),
            colorIndices=_seq(ffi, a.colorIndices, a.ncolorIndex, i4),
            colorPerVertex=bool(a.colorPerVertex), textureIndex=a.texture,
            textureCoordinate=_seq(ffi, a.texCoords, 2 * a.ntexCoord, f4),
            textureCoordIndices=_seq(ffi, a.texCoordIndices, a.ntexCoordIndex, i4),
            textransformMatrix=list(a.texTransform))
            for a in (b.appearances[i] for i in range(b.nappearance))]
        self.materials = [NS(ambientIntensity=m.ambientIntensity,
                             diffuseColor=list(m.diffuseColor),
                             emissiveColor=list(m.emissiveColor), shininess=m.shininess,
                             specularColor=list(m.specularColor), transparency=m.transparency)
                          for m in (b.materials[i] for i in range(b.nmaterial))]
        self.textures = [NS(width=t.width, height=t.height, numComponents=t.numComponents,
                            repeatS=bool(t.repeatS), repeatT=bool(t.repeatT),
                            url=_text(ffi, t.url),
                            image=bytes(ffi.buffer(t.image, t.nimage)) if t.nimage else b"")
                         for t in (b.textures[i] for i in range(b.ntexture))]


def _url_path(url):
    """The local path of a file: URL, with its fragment (an MJCF model's #BODY) kept."""
    from urllib.parse import unquote, urlparse
    parts = urlparse(url)
    return unquote(parts.path) + ("#" + parts.fragment if parts.fragment else "")


class LocalSim:
    """One hsSim (core.h): thin methods over the core's functions, errors raised as CoreError,
    state as read-only NumPy views (see the module comment)."""

    def __init__(self):
        core = core_module()
        self.ffi, self.lib = core.ffi, core.lib
        self._err = self.ffi.new("hsError *")
        ptr = self.lib.hs_makeSim(self._err)
        if ptr == self.ffi.NULL:
            _raise(self.ffi, self._err, self._err.code, "hs_makeSim")
        # the holds of the bodies the simulation borrows: its destructor drops them after
        # freeing the simulation, so a body outlives every simulation that borrows it, whichever
        # of this object, its views and the bodies goes last (_BodyHold)
        self._keep = keep = []
        lib = self.lib

        def free(p, holds=keep):
            lib.hs_freeSim(p)
            for hold in holds:
                hold.drop()
        self._ptr = self.ffi.gc(ptr, free)
        self.runaway_message = ""  # the core's message of the last runaway step
        self._doubles = self.ffi.typeof("double[]")  # parsed once: from_buffer's type
        self._joints = {}  # character index -> hs_jointIdCount (largest jointId + 1)
        self._names = {}  # character name -> index

    @property
    def ptr(self):
        """The core's hsSim; after close() every call that needs it raises CallOrderError."""
        ptr = self._ptr
        if ptr is None:
            self._closed()
        return ptr

    def _closed(self):
        from .errors import CallOrderError
        raise CallOrderError("the simulation is closed (the Simulation's close() or reset() "
                             "freed it; after a reset, take sim.local again)", "closed")

    def close(self):
        """Free the simulation now unless views still hold it (then when the last goes)."""
        self._ptr = None

    def _check(self, code, what):
        if code < 0:
            _raise(self.ffi, self._err, code, what)
        return code

    def _e(self):
        """The simulation's hsError, clear (code 0: see _raise)."""
        return self._err

    # --- set-up ---
    def add_character(self, name, body):
        """Add ``body`` (a _Body) as character ``name``; the simulation borrows it (one body may
        serve several characters and simulations; it lives as long as the last of them).
        Returns the index."""
        ch = self._check(self.lib.hs_addCharacter(self.ptr, name.encode(), body._ptr, 0,
                                                  self._e()), "registerCharacter")
        body._hold.users += 1
        self._keep.append(body._hold)
        self._names[name] = ch
        return ch

    def index(self, name):
        """The index of character ``name``."""
        try:
            return self._names[name]
        except KeyError:
            from .errors import UnknownName
            raise UnknownName("no character %r (characters: %s)"
                              % (name, list(self._names))) from None

    def link(self, ch, name):
        """The index of link ``name`` of character ch ("": -1, every link)."""
        if name == "":
            return -1
        return self._check(self.lib.hs_link(self.ptr, ch, name.encode(), self._e()), "link")

    def link_count(self, ch):
        return self.lib.hs_linkCount(self.ptr, ch)

    def joint_id_count(self, ch):
        """The length of character ch's jointId-ordered arrays: largest jointId + 1 (gaps
        included)."""
        n = self._joints.get(ch)
        if n is None:
            n = self._joints[ch] = self.lib.hs_jointIdCount(self.ptr, ch)
        return n

    def link_name(self, ch, k):
        return self.ffi.string(self.lib.hs_linkName(self.ptr, ch, k)).decode()

    def joint_links(self, ch):
        """Per jointId the link index (-1: a gap), as a NumPy array."""
        n = self.joint_id_count(ch)
        return np.array([self.lib.hs_jointLinks(self.ptr, ch)[i] for i in range(n)], dtype=int)

    def sensor_name(self, ch, s):
        return self.ffi.string(self.lib.hs_sensorName(self.ptr, ch, s)).decode()

    # --- views ---
    def _view(self, ptr, shape):
        """A read-only float64 array over ``prod(shape)`` doubles at ptr that keeps this
        simulation alive (see the module comment)."""
        count = int(np.prod(shape))
        if ptr == self.ffi.NULL:
            raise CoreError(-1, "no such state")
        owner = self.ptr
        held = self.ffi.gc(self.ffi.cast("double *", ptr), lambda _p, _o=owner: None)
        arr = np.frombuffer(self.ffi.buffer(held, 8 * count), dtype=np.float64).reshape(shape)
        arr.flags.writeable = False
        return arr

    def q_view(self, ch):
        """Joint values per link (link index order; 0 for links without a joint)."""
        return self._view(self.lib.hs_q(self.ptr, ch), (self.link_count(ch),))

    def dq_view(self, ch):
        return self._view(self.lib.hs_dq(self.ptr, ch), (self.link_count(ch),))

    def u_view(self, ch):
        return self._view(self.lib.hs_u(self.ptr, ch), (self.link_count(ch),))

    def p_view(self, ch):
        """Link origins (nlinks, 3), world frame."""
        return self._view(self.lib.hs_linkP(self.ptr, ch), (self.link_count(ch), 3))

    def R_view(self, ch):
        """Link rotations (nlinks, 3, 3)."""
        return self._view(self.lib.hs_linkR(self.ptr, ch), (self.link_count(ch), 3, 3))

    def reading_view(self, ch, s):
        """Sensor s's reading (force 6, gyro / accelerometer 3, range its beams)."""
        n = self.ffi.new("int *")
        ptr = self.lib.hs_reading(self.ptr, ch, s, n)
        if n[0] == 0:
            return np.zeros(0)
        if not self.lib.hs_sensorsEnabled(self.ptr):
            # the core then answers with one shared zero buffer that a later character may
            # replace: a copy, not a view (it stays zero when sensors are switched on later)
            zeros = np.zeros(n[0])
            zeros.flags.writeable = False
            return zeros
        return self._view(ptr, (n[0],))

    def camera(self, ch, s):
        """Render vision sensor s of character ch at the current link poses (hs_renderCamera):
        (colour H x W x 3 uint8, depth H x W float32 [m]), rows top first; new arrays."""
        w, h = self.ffi.new("int *"), self.ffi.new("int *")
        self._check(self.lib.hs_cameraSize(self.ptr, ch, s, w, h, self._e()), "camera size")
        rgb = np.empty((h[0], w[0], 3), dtype=np.uint8)
        depth = np.empty((h[0], w[0]), dtype=np.float32)
        self._check(self.lib.hs_renderCamera(self.ptr, ch, s,
                                             self.ffi.from_buffer("unsigned char[]", rgb),
                                             self.ffi.from_buffer("float[]", depth),
                                             self._e()), "render camera")
        return rgb, depth

    # --- stepping and link data ---
    def step(self, n=1):
        """n steps (hs_stepN); the hsE_RUNAWAY code is returned (the core's message in
        ``runaway_message``), other errors raised."""
        try:  # (self._ptr, not the property: the fast path)
            code = self.lib.hs_stepN(self._ptr, n, self._err)
        except TypeError:
            if self._ptr is None:
                self._closed()
            raise
        if code == self.lib.hsE_RUNAWAY:
            self.runaway_message = self.ffi.string(self._err.message).decode(errors="replace")
            _clear(self._err)
            return code
        return self._check(code, "stepSimulation")

    def save_state(self):
        """The simulation's whole state as bytes (hs_saveState)."""
        lib, ffi = self.lib, self.ffi
        n = self._check(lib.hs_saveState(self.ptr, ffi.NULL, 0, self._e()), "saveState")
        buf = ffi.new("char[]", n)
        self._check(lib.hs_saveState(self.ptr, buf, n, self._e()), "saveState")
        return ffi.buffer(buf, n)[:]

    def restore_state(self, data):
        """Continue from ``data`` (bytes of save_state); CoreError (hsE_INVALID) naming the
        difference when it is not this simulation's, nothing changed then."""
        data = bytes(data)
        self._check(self.lib.hs_restoreState(self.ptr, data, len(data), self._e()),
                    "restoreState")

    def set_link_data(self, ch, link, type_code, values):
        v = np.ascontiguousarray(values, dtype=np.float64)
        self._check(self.lib.hs_setLinkData(self.ptr, ch, link, type_code,
                                            self.ffi.from_buffer(self._doubles, v), v.size,
                                            self._e()), "setCharacterLinkData")

    def set_all_link_data(self, ch, type_code, values):
        v = values if _is_doubles(values) else np.ascontiguousarray(values, dtype=np.float64)
        try:  # (self._ptr, not the property: the fast path)
            code = self.lib.hs_setAllLinkData(self._ptr, ch, type_code,
                                              self.ffi.from_buffer(self._doubles, v), v.size,
                                              self._err)
        except TypeError:
            if self._ptr is None:
                self._closed()
            raise
        self._check(code, "setCharacterAllLinkData")

    def get_link_data(self, ch, link, type_code):
        out = np.empty(64)
        n = self._check(self.lib.hs_getLinkData(self.ptr, ch, link, type_code,
                                                self.ffi.from_buffer(self._doubles, out),
                                                out.size, self._e()), "getCharacterLinkData")
        if n > out.size:
            out = np.empty(n)
            n = self._check(self.lib.hs_getLinkData(self.ptr, ch, link, type_code,
                                                    self.ffi.from_buffer(self._doubles, out),
                                                    out.size, self._e()), "getCharacterLinkData")
        return out[:n].copy()

    def get_all_link_data(self, ch, type_code):
        size = self.lib.hs_linkDataSize(type_code)
        out = np.empty(max(1, self.joint_id_count(ch) * max(size, 1)))
        n = self._check(self.lib.hs_getAllLinkData(self.ptr, ch, type_code,
                                                   self.ffi.from_buffer(self._doubles, out),
                                                   out.size, self._e()), "getCharacterAllLinkData")
        return out[:n]

    def set_joint_torques_by_link(self, ch, u):
        """Torques indexed by link (link index order, hs_linkCount of them; not jointId order
        as Simulation.set_joint_torques): the fast path of a control loop."""
        v = u if _is_doubles(u) else np.ascontiguousarray(u, dtype=np.float64)
        try:  # (self._ptr, not the property: the fast path)
            code = self.lib.hs_setJointTorquesByLink(self._ptr, ch,
                                                     self.ffi.from_buffer(self._doubles, v),
                                                     v.size, self._err)
        except TypeError:
            if self._ptr is None:
                self._closed()
            raise
        self._check(code, "set_joint_torques_by_link")

    def set_joint_torques(self, ch, u):
        """Deprecated name of set_joint_torques_by_link (it indexes by link, which this name
        hid; kept because docs/python.md showed it): warns, then does the same."""
        import warnings
        warnings.warn("LocalSim.set_joint_torques indexes by link: call "
                      "set_joint_torques_by_link", DeprecationWarning, stacklevel=2)
        self.set_joint_torques_by_link(ch, u)


def _is_doubles(a):
    """True for a C-contiguous float64 NumPy array (passed to C as it is)."""
    return type(a) is np.ndarray and a.dtype == np.float64 and a.flags.c_contiguous


def sensor_types(core=None):
    """The core's table of sensor types (core.h, hs_sensorType*; one table in model/): a list
    of (key, hstSensor, numbers per reading (-1: per sensor), place in SensorState (-1: not
    there)), in hstSensor order; key is hrpsim's one name of the type ("force", "gyro",
    "accel", "vision", "range"). (hrpsim.core_facts.sensor_types has the noise flag too.)"""
    return [entry[:4] for entry in core_facts.sensor_types()]


def _type_code(lib, type_name):
    """hstLinkData from a LinkDataType name ("JOINT_VALUE"), an omniORB enum or an int."""
    if isinstance(type_name, str):
        return getattr(lib, "hsDATA_" + type_name)
    return int(getattr(type_name, "_v", type_name))


class LocalBackend:
    """The in-process back end of hrpsim.Simulation (see the module comment): each call is
    the core call the DynamicsSimulator servant makes for the same request."""

    name = "local"
    features = frozenset({"joint_options", "noise"})

    def __init__(self, sim):
        self.sim = sim          # given to step's before(sim); nothing else of it is read
        self.core = None
        self._bodies = {}       # name -> _Body, as load_model loaded it
        self._names = []        # the characters of the configuration applied, in its order

    def describe(self):
        return "local"

    def sleeping(self, character):
        return self.core.lib.hs_sleeping(self.core.ptr, self.core.index(character))

    def load_model(self, name, url):
        body = load_body(url)
        self._bodies[name] = body
        joint_links = [body.link_names[k] if k >= 0 else "" for k in body.joint_link_index]
        root = next((n for n, p in zip(body.link_names, body.parents) if p < 0),
                    body.link_names[0])
        return _Model(name, url, body, body.link_names, root, joint_links)

    def dynamics(self):
        from .errors import Unsupported
        raise Unsupported("the local back end has no OpenHRP.DynamicsSimulator: use the "
                          "Simulation's methods or sim.local", "dynamics")

    def apply(self, config):
        """Build the core's simulation from ``config`` (hrpsim.configuration.Configuration;
        its models loaded by load_model): the core calls the DynamicsSimulator servant makes
        for the server back end's calls, in their order. The core checks every value; a
        refusal raises the hrpsim.errors class the servers raise, or ProjectError at the
        record's line for a project's configuration."""
        from .configuration import refusals_at
        from .errors import ServerError
        core = LocalSim()
        lib, ffi = core.lib, core.ffi
        at, call = config.at.get, refusals_at(config, ServerError)

        def check(where, what, fn, *args):
            # fn(*args, err) as the servant calls it: a refusal raised as the servers' class
            call(where, lambda: core._check(fn(*args, core._e()), what))

        try:
            # registerCharacter, init, setGVector, modes, initial data, FK, pairs, loops,
            # initSimulation: the order of the server back end's calls
            for name, _, where in config.models:
                call(where, core.add_character, name, self._bodies[name])
            check(at("time_step"), "init", lib.hs_setTimeStep, core.ptr,
                  float(config.time_step))
            check(at("method"), "init", lib.hs_setIntegrateMethod, core.ptr,
                  1 if config.method == "RUNGE_KUTTA" else 0)
            lib.hs_enableSensors(core.ptr, 1 if config.sensors else 0)
            g = ffi.new("double[3]", [-float(x) for x in config.gravity])
            check(at("gravity"), "setGVector", lib.hs_setGravity, core.ptr, g)
            for st in config.state:
                if st.kind == "mode":
                    check(st.at, "setCharacterAllJointModes", lib.hs_setAllJointModes,
                          core.ptr, core.index(st.character),
                          1 if st.value == "HIGH_GAIN_MODE" else 0)
                elif st.kind == "joints":
                    call(st.at, core.set_all_link_data, core.index(st.character),
                         _type_code(lib, st.value), st.data)
                else:
                    c = core.index(st.character)
                    call(st.at, lambda c=c, st=st: core.set_link_data(
                        c, core.link(c, st.link), _type_code(lib, st.value), st.data))
            lib.hs_forwardKinematics(core.ptr, -1)
            for p in config.pairs:
                check(p.at, "registerCollisionCheckPair", lib.hs_addContactPair, core.ptr,
                      p.char1.encode(), p.link1.encode(), p.char2.encode(), p.link2.encode(),
                      float(p.static), float(p.slip), float(p.restitution), float(p.culling))
            kinds = core_facts.extra_joint_types()  # hstExtraJoint order
            for lp in config.loops:
                check(lp.at, "registerExtraJoint", lib.hs_addExtraJoint, core.ptr,
                      lp.name.encode(), lp.char1.encode(), lp.link1.encode(),
                      lp.char2.encode(), lp.link2.encode(), ffi.new("double[3]", lp.pos1),
                      ffi.new("double[3]", lp.pos2),
                      kinds.index(core_facts.extra_joint_kind(lp.type)),
                      ffi.new("double[3]", lp.axis))
            engine, settings = config.solver
            if engine or settings:
                keep = [ffi.new("char[]", t.encode()) for pair in settings for t in pair]
                check(at("solver"), "setSolver", lib.hs_setSolver, core.ptr, engine.encode(),
                      len(settings), keep[0::2] or ffi.NULL, keep[1::2] or ffi.NULL)
            switch, rotor, sleep = config.joint_options
            check(at("joint_options"), "setWorldOptions", lib.hs_setJointOptions, core.ptr,
                  joint_limit_bits(switch), int(bool(rotor)))
            check(at("joint_options"), "setWorldOptions", lib.hs_setSleep, core.ptr,
                  int(bool(sleep)))
            if config.noise is not None:
                call(at("noise"), self._set_noise, core, config.noise)
            check(None, "initSimulation", lib.hs_start, core.ptr)
        except BaseException:
            core.close()
            raise
        self.core = core
        self._names = [m[0] for m in config.models]

    @staticmethod
    def _set_noise(core, noise):
        seed, limits, specs = noise
        ffi, lib = core.ffi, core.lib
        n = ffi.new("hsNoise *")
        n.seed = seed
        n.limits = int(limits)
        types = {key: (t, size) for key, t, size, _ in sensor_types(core)}
        for name, std, bias in specs:
            t, size = types[name]
            size = max(size, 1)   # range: one std and bias for every beam
            n.active[t] = 1
            for k in range(size):
                n.std[t][k] = std[k] if len(std) > 1 else std[0]
                n.bias[t][k] = bias[k] if len(bias) > 1 else bias[0]
        core._check(lib.hs_setNoise(core.ptr, n, core._e()), "sensor noise")

    def step(self, n, before):
        sim = self.sim
        if before is None:
            self._step(n)
            return
        for _ in range(n):
            before(sim)
            self._step(1)

    def _step(self, n):
        sim, core = self.sim, self.core
        if n <= 0:
            return
        code = core.step(n)
        # the core counts (sim.local.step() included): a runaway's step was made
        sim._steps = core.lib.hs_steps(core.ptr)
        if code:
            k = core.lib.hs_runaway(core.ptr)
            names = self._names
            who = names[k] if 0 <= k < len(names) else None
            # the core's message (which character, before or after which step, the bounds)
            raise Runaway(core.runaway_message or core_facts.runaway_message(who, sim._steps),
                          who)

    def run_to(self, target, before):
        self.step(target - self.core_steps(), before)

    def save_state(self):
        return self.core.save_state()

    def restore_state(self, data):
        self.core.restore_state(data)

    def core_steps(self):
        """Steps the core has made since the start."""
        return int(self.core.lib.hs_steps(self.core.ptr))

    def discard(self, closing=False):
        if self.core is not None:
            self.core.close()
        self.core = None

    def close(self):
        pass

    # --- writing between steps ---
    def set_all_link_data(self, character, type_name, values):
        core = self.core
        core.set_all_link_data(core.index(character), _type_code(core.lib, type_name), values)

    def set_link_data(self, character, link, type_name, data):
        core = self.core
        ch = core.index(character)
        core.set_link_data(ch, core.link(ch, link), _type_code(core.lib, type_name), data)

    # --- reading ---
    def time(self):
        return float(self.core.lib.hs_time(self.core.ptr))

    def link_data(self, character, link, type_name):
        core = self.core
        ch = core.index(character)
        return core.get_link_data(ch, core.link(ch, link), _type_code(core.lib, type_name))

    def all_link_data(self, character, type_name):
        core = self.core
        return core.get_all_link_data(core.index(character), _type_code(core.lib, type_name))

    def link_poses(self, character):
        core = self.core
        ch = core.index(character)
        return core.p_view(ch).copy(), core.R_view(ch).copy()

    def sensors(self, character):
        core = self.core
        lib, ffi = core.lib, core.ffi
        ch = core.index(character)
        out = {"q": self.all_link_data(character, "JOINT_VALUE"),
               "dq": self.all_link_data(character, "JOINT_VELOCITY"),
               "u": self.all_link_data(character, "JOINT_TORQUE")}
        count = ffi.new("int *")
        # SensorState's blocks, in its order, from the core's table
        for key, t, size, _ in sorted((e for e in sensor_types(core) if e[3] >= 0),
                                      key=lambda e: e[3]):
            idx = lib.hs_sensorsOfType(core.ptr, ch, t, count)
            readings = [core.reading_view(ch, idx[i]).copy() for i in range(count[0])]
            if size < 0:
                out[key] = readings   # a reading per sensor of its own length (range beams)
            else:
                out[key] = (np.array(readings, dtype=float).reshape(-1, size) if readings
                            else np.zeros((0, size)))
        return out

    def extra_joint_force(self, character, name):
        core = self.core
        ch = core.index(character)
        i = core._check(core.lib.hs_extraJoint(core.ptr, ch, name.encode(), core._e()),
                        "getExtraJointConstraintForce")
        out = np.empty(6)
        core._check(core.lib.hs_extraJointForce(core.ptr, i,
                                                core.ffi.from_buffer(core._doubles, out)),
                    "getExtraJointConstraintForce")
        return out

    def camera_images(self, character):
        """Every vision sensor of character rendered in process (hs_renderCamera), taken as
        the ViewSimulator takes it: ``color`` for colour cameras, ``mono`` (hs_rgbToMono) for
        mono ones, ``depth`` for depth ones (OpenHRP's CameraType)."""
        from .images import CameraImage
        core = self.core
        lib, ffi = core.lib, core.ffi
        ch = core.index(character)
        out = {}
        for s in range(lib.hs_sensorCount(core.ptr, ch)):
            kind = lib.hs_cameraType(core.ptr, ch, s)
            if kind < 0:
                continue   # not a vision sensor
            color, mono, with_depth = core_facts.camera_images(kind)
            rgb, depth = core.camera(ch, s)
            h, w = depth.shape
            img = CameraImage(w, h)
            if color:
                img.color = rgb
            elif mono:
                mono = np.empty((h, w), dtype=np.uint8)
                lib.hs_rgbToMono(ffi.from_buffer("unsigned char[]", mono),
                                 ffi.from_buffer("unsigned char[]", rgb), w * h)
                img.mono = mono
            if with_depth:
                img.depth = depth
            out[core.sensor_name(ch, s)] = img
        return out
