#!/usr/bin/env python3
"""Write VRML models shaped like OpenHRP 3.1's own samples, for the load-speed targets
(OpenHRP's ModelLoader: sample1.wrl 3.9 ms, mockup_main.wrl 117 ms; hrpsim's target is
4x faster: a sample1-like humanoid <= 1 ms, a 600-shape scene <= 30 ms).

Nothing here is copied from OpenHRP; the models only have the same make-up:

- sample1_like.wrl: a 29-joint humanoid (free waist, 2 legs x 6, chest 3, 2 arms x 7) in one
  ~40 KB file with OpenHRP's PROTO header, 2 vision sensors, 2 force
  sensors, a gyro and an accelerometer; each link has one Segment with 3 primitives (Boxes and
  Cylinders, as sample1 has) under Transforms, some scaled, shared appearances and a DEF/USE'd
  camera shape.
- mockup_like/main.wrl: an environment (no Humanoid) of 613 shapes, 553 of them Cylinders
  (pipes and rails of a plant, many under scaling Transforms), 40 Boxes and 20 IndexedFaceSets
  of 96 triangles, spread over 12 part files that main.wrl Inlines (two of them twice, which
  OpenHRP reads as separate copies).

Usage: gen_openhrp_like.py [OUTDIR]   (default bench/out); prints the files written.
Deterministic; standard library only. Measure with
    build/bin/hrpsim-bench-load bench/out/sample1_like.wrl 200
    build/bin/hrpsim-bench-load bench/out/mockup_like/main.wrl 50
"""

import argparse
import math
import os

PROTOS = """\
PROTO Joint [
  exposedField SFVec3f center 0 0 0
  exposedField MFNode children []
  exposedField MFFloat llimit []
  exposedField MFFloat lvlimit []
  exposedField SFRotation limitOrientation 0 0 1 0
  exposedField SFString name ""
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFVec3f scale 1 1 1
  exposedField SFRotation scaleOrientation 0 0 1 0
  exposedField MFFloat stiffness [ 0 0 0 ]
  exposedField SFVec3f translation 0 0 0
  exposedField MFFloat ulimit []
  exposedField MFFloat uvlimit []
  exposedField SFString jointType ""
  exposedField SFInt32 jointId -1
  exposedField SFVec3f jointAxis 0 0 1
  exposedField SFFloat gearRatio 1
  exposedField SFFloat rotorInertia 0
  exposedField SFFloat rotorResistor 0
  exposedField SFFloat torqueConst 1
  exposedField SFFloat encoderPulse 1
]
{ Transform { center IS center children IS children rotation IS rotation scale IS scale
              scaleOrientation IS scaleOrientation translation IS translation } }
PROTO Segment [
  field SFVec3f bboxCenter 0 0 0
  field SFVec3f bboxSize -1 -1 -1
  exposedField SFVec3f centerOfMass 0 0 0
  exposedField MFNode children [ ]
  exposedField SFNode coord NULL
  exposedField MFNode displacers [ ]
  exposedField SFFloat mass 0
  exposedField MFFloat momentsOfInertia [ 0 0 0 0 0 0 0 0 0 ]
  exposedField SFString name ""
  eventIn MFNode addChildren
  eventIn MFNode removeChildren
]
{ Group { addChildren IS addChildren bboxCenter IS bboxCenter bboxSize IS bboxSize
          children IS children removeChildren IS removeChildren } }
PROTO Humanoid [
  field SFVec3f bboxCenter 0 0 0
  field SFVec3f bboxSize -1 -1 -1
  exposedField SFVec3f center 0 0 0
  exposedField MFNode humanoidBody [ ]
  exposedField MFString info [ ]
  exposedField MFNode joints [ ]
  exposedField SFString name ""
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFVec3f scale 1 1 1
  exposedField SFRotation scaleOrientation 0 0 1 0
  exposedField MFNode segments [ ]
  exposedField MFNode sites [ ]
  exposedField SFVec3f translation 0 0 0
  exposedField SFString version "1.1"
  exposedField MFNode viewpoints [ ]
]
{ Transform { bboxCenter IS bboxCenter bboxSize IS bboxSize center IS center
    rotation IS rotation scale IS scale scaleOrientation IS scaleOrientation
    translation IS translation
    children [ Group { children IS viewpoints } Group { children IS humanoidBody } ] } }
PROTO VisionSensor [
  exposedField SFVec3f translation 0 0 0
  exposedField SFRotation rotation 0 0 1 0
  exposedField MFNode children [ ]
  exposedField SFFloat fieldOfView 0.785398
  exposedField SFString name ""
  exposedField SFFloat frontClipDistance 0.01
  exposedField SFFloat backClipDistance 10.0
  exposedField SFString type "NONE"
  exposedField SFInt32 sensorId -1
  exposedField SFInt32 width 320
  exposedField SFInt32 height 240
  exposedField SFFloat frameRate 30
]
{ Transform { rotation IS rotation translation IS translation children IS children } }
PROTO ForceSensor [
  exposedField SFVec3f maxForce -1 -1 -1
  exposedField SFVec3f maxTorque -1 -1 -1
  exposedField SFVec3f translation 0 0 0
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFInt32 sensorId -1
]
{ Transform { translation IS translation rotation IS rotation } }
PROTO Gyro [
  exposedField SFVec3f maxAngularVelocity -1 -1 -1
  exposedField SFVec3f translation 0 0 0
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFInt32 sensorId -1
]
{ Transform { translation IS translation rotation IS rotation } }
PROTO AccelerationSensor [
  exposedField SFVec3f maxAcceleration -1 -1 -1
  exposedField SFVec3f translation 0 0 0
  exposedField SFRotation rotation 0 0 1 0
  exposedField SFInt32 sensorId -1
]
{ Transform { translation IS translation rotation IS rotation } }
"""


def segment(name, mass, shapes, ind):
    pad = " " * ind
    out = [pad + "DEF %s Segment {" % name,
           pad + "  centerOfMass 0 0 -0.05",
           pad + "  mass %g" % mass,
           pad + "  momentsOfInertia [ 0.01 0 0 0 0.01 0 0 0 0.01 ]",
           pad + "  children ["]
    out += [pad + "    " + s for s in shapes]
    out += [pad + "  ]", pad + "}"]
    return out


def limb_shapes(i, app):
    r = 0.03 + 0.002 * (i % 5)
    return [
        "Transform { translation 0 0 -0.1 rotation 1 0 0 1.5708 children Shape {"
        " appearance USE %s geometry Cylinder { radius %.3f height 0.2 } } }" % (app, r),
        "Transform { translation 0 0 -0.2 scale 1 1 0.5 children Shape {"
        " appearance USE %s geometry Box { size 0.06 0.06 0.08 } } }" % app,
        # a joint drum, as sample1 draws its joints (it has no spheres)
        "Transform { rotation 0 0 1 1.5708 children Shape { appearance USE %s"
        " geometry Cylinder { radius 0.025 height 0.05 } } }" % app,
    ]


def sample1_like():
    lines = ["#VRML V2.0 utf8", "# a sample1-like humanoid written for hrpsim's load bench",
             PROTOS,
             "NavigationInfo { avatarSize 0.5 headlight TRUE type [\"EXAMINE\", \"ANY\"] }",
             "Background { skyColor 0.4 0.6 0.4 }",
             "Viewpoint { position 3 0 0.835 orientation 0.577 0.577 0.577 2.0935 }",
             "DEF SAMPLE_LIKE Humanoid {",
             "  name \"sample_like\"",
             "  info [ \"generated by bench/gen_openhrp_like.py\" ]",
             "  humanoidBody [",
             "  DEF WAIST Joint {",
             "    jointType \"free\"",
             "    translation 0 0 0.7235",
             "    children [",
             "      DEF gsensor AccelerationSensor { sensorId 0 }",
             "      DEF gyrometer Gyro { sensorId 0 }"]
    lines += segment("WAIST_LINK0", 27.0, [
        "Shape { appearance DEF BODY_APP Appearance { material Material { diffuseColor 0.6 0.8"
        " 0.6 } } geometry Box { size 0.08 0.08 0.08 } }",
        "DEF LIMB_APP_HOLDER Shape { appearance DEF LIMB_APP Appearance { material Material {"
        " } } geometry Box { size 0.05 0.05 0.11 } }"], 6)
    joint_id = [0]
    closers = []

    def chain(prefix, axes, offset, depth_indent):
        ind = depth_indent
        for k, axis in enumerate(axes):
            pad = " " * ind
            lines.append(pad + "DEF %s%d Joint {" % (prefix, k))
            lines.append(pad + "  jointType \"rotate\"")
            lines.append(pad + "  jointAxis %s" % axis)
            lines.append(pad + "  jointId %d" % joint_id[0])
            lines.append(pad + "  translation %s" % (offset if k == 0 else "0 0 -0.15"))
            lines.append(pad + "  ulimit [ 2.5 ] llimit [ -2.5 ] uvlimit [ 8 ] lvlimit [ -8 ]")
            lines.append(pad + "  rotorInertia 1e-4 gearRatio 100 torqueConst 0.02")
            lines.append(pad + "  children [")
            app = "LIMB_APP" if k % 2 else "BODY_APP"
            lines.extend(segment("%s%d_LINK" % (prefix, k), 1.0 + 0.2 * k,
                                 limb_shapes(joint_id[0], app), ind + 4))
            joint_id[0] += 1
            if k == len(axes) - 1 and prefix.endswith("LEG"):
                lines.append(pad + "    DEF %sFS ForceSensor { sensorId %d translation 0 0 -0.1"
                             " }" % (prefix, 0 if prefix.startswith("R") else 1))
            ind += 4
        for k in reversed(range(len(axes))):
            pad = " " * (depth_indent + 4 * k)
            lines.append(pad + "  ]")
            lines.append(pad + "}")

    leg = ["0 0 1", "1 0 0", "0 1 0", "0 1 0", "0 1 0", "1 0 0"]
    arm = ["0 1 0", "1 0 0", "0 0 1", "0 1 0", "0 0 1", "0 1 0", "1 0 0"]
    chain("RLEG", leg, "0 -0.09 0", 6)
    chain("LLEG", leg, "0 0.09 0", 6)
    # chest: waist pitch, roll, yaw; arms and head hang from the yaw link
    pad = " " * 6
    chest = ["0 1 0", "1 0 0", "0 0 1"]
    for k, axis in enumerate(chest):
        p = pad + " " * (4 * k)
        lines += [p + "DEF CHEST%d Joint {" % k, p + "  jointType \"rotate\"",
                  p + "  jointAxis %s" % axis, p + "  jointId %d" % joint_id[0],
                  p + "  translation 0 0 %s" % ("0.176" if k == 0 else "0.1"),
                  p + "  children ["]
        lines += segment("CHEST%d_LINK" % k, 6.0, limb_shapes(joint_id[0], "BODY_APP"),
                         len(p) + 4)
        joint_id[0] += 1
    inner = len(pad) + 4 * len(chest)
    for side, y, sid in (("L", 0.05, 0), ("R", -0.05, 1)):
        lines += [" " * inner + "DEF VISION_%s VisionSensor {" % side,
                  " " * inner + "  translation 0.15 %g 0.3 rotation 0.4472 -0.4472 -0.7746 "
                  "1.8235" % y,
                  " " * inner + "  type \"COLOR\" sensorId %d name \"%sCamera\"" % (sid, side),
                  " " * inner + "  children [ %s ]" % (
                      "DEF CAMERA_SHAPE Transform { rotation 1 0 0 -1.5708 children Shape {"
                      " appearance USE BODY_APP geometry Cylinder { radius 0.02 height 0.025 }"
                      " } }" if sid == 0 else "USE CAMERA_SHAPE"),
                  " " * inner + "}"]
    chain("RARM", arm, "0 -0.21 0.2", inner)
    chain("LARM", arm, "0 0.21 0.2", inner)
    for k in reversed(range(len(chest))):
        p = pad + " " * (4 * k)
        lines += [p + "  ]", p + "}"]
    lines += ["    ]", "  }", "  ]", "}"]
    assert joint_id[0] == 29, joint_id[0]
    return "\n".join(lines) + "\n"


def face_set(k):
    """A closed prism of 48 sides: 96 side triangles as quads, caps left open."""
    n = 48
    pts, idx = [], []
    for i in range(n):
        a = 2 * math.pi * i / n
        pts.append("%.4f %.4f 0" % (0.2 * math.cos(a), 0.2 * math.sin(a)))
        pts.append("%.4f %.4f %.3f" % (0.2 * math.cos(a), 0.2 * math.sin(a), 0.5 + 0.01 * k))
    for i in range(n):
        j = (i + 1) % n
        idx.append("%d %d %d %d -1" % (2 * i, 2 * j, 2 * j + 1, 2 * i + 1))
    return ("Shape { appearance USE PIPE_APP geometry IndexedFaceSet { coord Coordinate {"
            " point [ %s ] } coordIndex [ %s ] creaseAngle 0.8 } }" % (", ".join(pts),
                                                                         " ".join(idx)))


def mockup_like(outdir):
    os.makedirs(outdir, exist_ok=True)
    written = []
    # 12 part files; main Inlines parts 0 and 1 twice: 14 Inlines
    # shapes per Inline: 553 cylinders, 40 boxes, 20 face sets over 14 Inlines
    counts = []
    for p in range(12):
        counts.append([40, 3, 1])  # cylinders, boxes, face sets per part
    # totals over 14 Inlines (parts 0 and 1 twice): 14 x 40 = 560 cylinders
    counts[11][0] = 33            # 553 cylinders in all
    counts[10][1] = 1             # 40 boxes: 14 x 3 - 2
    for p in range(6, 12):
        counts[p][2] = 2          # 20 face sets: 14 x 1 + 6
    for p, (ncyl, nbox, nfs) in enumerate(counts):
        lines = ["#VRML V2.0 utf8", "# plant part %d (generated)" % p,
                 "DEF PIPE_APP Appearance { material Material { diffuseColor 0.7 0.7 0.75 } }"]
        for c in range(ncyl):
            x, y = 0.3 * (c % 8), 0.4 * (c // 8)
            scale = "1 %g 1" % (1 + 0.25 * (c % 4)) if c % 3 == 0 else "1 1 1"
            lines.append("Transform { translation %.2f %.2f 0.5 rotation 1 0 0 1.5708 scale %s"
                         " children Shape { appearance USE PIPE_APP geometry Cylinder {"
                         " radius %.3f height 1.0 } } }" % (x, y, scale, 0.02 + 0.005 * (c % 5)))
        for b in range(nbox):
            lines.append("Transform { translation %.2f 2.5 0.1 children Shape { appearance "
                         "USE PIPE_APP geometry Box { size 0.5 0.3 0.2 } } }" % (0.6 * b))
        for f in range(nfs):
            lines.append("Transform { translation %.2f 3.0 0 children %s }"
                         % (0.5 * f, face_set(p * 2 + f)))
        name = "part%02d.wrl" % p
        with open(os.path.join(outdir, name), "w") as f:
            f.write("\n".join(lines) + "\n")
        written.append(name)
    main = ["#VRML V2.0 utf8", "# a mockup-like plant: 613 shapes over 14 Inlines (generated)"]
    inlines = list(range(12)) + [0, 1]
    for i, p in enumerate(inlines):
        main.append("Transform { translation %.1f %.1f 0 children Inline { url \"part%02d.wrl\" }"
                    " }" % (3.0 * (i % 4), 4.0 * (i // 4), p))
    with open(os.path.join(outdir, "main.wrl"), "w") as f:
        f.write("\n".join(main) + "\n")
    written.append("main.wrl")
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default=os.path.join(os.path.dirname(__file__), "out"),
                    help="where to write the models (default bench/out)")
    out = ap.parse_args(argv).outdir
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "sample1_like.wrl"), "w") as f:
        f.write(sample1_like())
    print(os.path.join(out, "sample1_like.wrl"))
    for name in mockup_like(os.path.join(out, "mockup_like")):
        print(os.path.join(out, "mockup_like", name))


if __name__ == "__main__":
    main()
