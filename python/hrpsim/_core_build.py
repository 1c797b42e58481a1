"""Build-time script: the cffi extension ``_hrpsim_core`` over the simulation core (core/core.h).

Run by CMake (python/CMakeLists.txt), not imported at run time::

    python _core_build.py CORE_H OUT_C

writes OUT_C, the C source of the extension module ``_hrpsim_core`` (cffi's API mode: compiled
against the real headers, so struct layouts and signatures are checked by the C compiler, and
calls go straight to the C functions). CMake compiles it into
``build/python/_hrpsim_core.<abi>.so`` linked with the core's static libraries;
``hrpsim.local`` finds it there (see ``hrpsim.local.core_module``).

The declarations are core.h itself, minus preprocessor lines and the C++ guards, plus util.h's
enums (the error codes and log levels, copied from util.h as they are written there), plus the
fields of the records the core only forward-declares (``...;``: the compiler fills in the
rest of the layout).
"""

import re
import sys

import cffi

# util.h's enums the Python side reads (taken from util.h at build time: util_enums)
UTIL_ENUMS = ("hstError", "hstLog")

# the fields of the records core.h forward-declares that the Python side reads (the body's
# description, model.h, for the viewer's models.json.gz), and the log level's setter (util.h)
RECORDS = """
hstLog hsu_setLogLevel(hstLog level);
struct hsError { int code; char message[512]; char file[512]; int line; int column; ...; };
struct hsdLinkMotion { double v[3]; double w[3]; double dv[3]; double dw[3]; ...; };
struct hsdContact { int pair; int ch[2]; int link[2]; double p[3]; double n[3]; double depth;
                    double force[3]; ...; };
struct hsdContactGroup { int pair; int ch[2]; int link[2]; int first; int count; ...; };
typedef int... hstSensor;
typedef int... hstLight;
typedef int... hstPrimitive;
typedef struct hsShapeRef { double T[12]; int inlineMatrix; int shape; ...; } hsShapeRef;
typedef struct hsSensor { const char *name; hstSensor type; int id; double translation[3];
                          double rotation[4]; const float *specValues; int nspecValue;
                          const hsShapeRef *shapeRefs; int nshapeRef; ...; } hsSensor;
typedef struct hsLight { const char *name; hstLight type; double T[12];
                         double ambientIntensity; double attenuation[3]; double color[3];
                         double intensity; double location[3]; int on; double radius;
                         double direction[3]; double beamWidth; double cutOffAngle;
                         ...; } hsLight;
typedef struct hsLink { const char *name; int jointId; const char *jointTypeName;
                        double jointValue; double axis[3]; double translation[3];
                        double rotation[4]; int parent; double mass; const hsShapeRef *shapeRefs;
                        int nshapeRef; int sensorAdr; int nsensor; int lightAdr; int nlight;
                        ...; } hsLink;
typedef struct hsShape { hstPrimitive primitive; const float *params; int nparam;
                         const float *vertices; int nvertex; const int *triangles;
                         int ntriangle; int appearance; ...; } hsShape;
typedef struct hsAppearance { int material; const float *normals; int nnormal;
                              const int *normalIndices; int nnormalIndex; int normalPerVertex;
                              int solid; float creaseAngle; const float *colors; int ncolor;
                              const int *colorIndices; int ncolorIndex; int colorPerVertex;
                              int texture; const float *texCoords; int ntexCoord;
                              const int *texCoordIndices; int ntexCoordIndex;
                              double texTransform[9]; ...; } hsAppearance;
typedef struct hsMaterial { float ambientIntensity; float diffuseColor[3];
                            float emissiveColor[3]; float shininess; float specularColor[3];
                            float transparency; ...; } hsMaterial;
typedef struct hsTexture { const unsigned char *image; size_t nimage; int numComponents;
                           int width; int height; int repeatS; int repeatT; const char *url;
                           ...; } hsTexture;
struct hsBody { const char *name; const char *url; hsLink *links; int nlink; hsShape *shapes;
                int nshape; hsAppearance *appearances; int nappearance;
                hsMaterial *materials; int nmaterial; hsTexture *textures; int ntexture;
                hsSensor *sensors; int nsensor; hsLight *lights; int nlight;
                const char *const *info; int ninfo; ...; };
"""


def util_enums(util_text):
    """The typedef'd enums of util.h named in UTIL_ENUMS, as written there (no comments)."""
    text = re.sub(r"//[^\n]*", "", util_text)
    out = []
    for name in UTIL_ENUMS:
        m = re.search(r"typedef enum %s \{[^}]*\} %s;" % (name, name), text)
        if m is None:
            raise SystemExit("_core_build.py: no enum %s in util.h" % name)
        out.append(m.group(0))
    return "\n".join(out) + "\n"


def util_header(header_path):
    """util/util.h beside core/core.h."""
    import os
    return os.path.join(os.path.dirname(os.path.abspath(header_path)), os.pardir, "util",
                        "util.h")


def declarations(header_text, util_text=""):
    """core.h as cffi declarations: no preprocessor lines (integer #defines kept), no C++
    guards, no comments; util.h's enums (util_text) before the records."""
    text = re.sub(r"//[^\n]*", "", header_text)
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            m = re.match(r"#\s*define\s+(\w+)\s+(\d+)\s*$", stripped)
            if m:
                lines.append("#define %s %s" % m.groups())
            continue
        if stripped in ('extern "C" {', "}") and not lines_open_struct(lines):
            continue
        lines.append(line)
    return "\n".join(lines) + "\n" + util_enums(util_text) + RECORDS


def lines_open_struct(lines):
    """True inside a struct or enum body (a closing brace there is the body's)."""
    depth = 0
    for line in lines:
        depth += line.count("{") - line.count("}")
    return depth > 0


def make_ffi(header_path):
    ffi = cffi.FFI()
    with open(header_path) as f, open(util_header(header_path)) as u:
        ffi.cdef(declarations(f.read(), u.read()))
    ffi.set_source("_hrpsim_core", '#include "core.h"\n#include "util.h"\n'
                   '#include "dynamics.h"\n#include "model.h"\n')
    return ffi


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: _core_build.py CORE_H OUT_C\n")
        return 2
    make_ffi(argv[1]).emit_c_code(argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
