"""Model text helpers for scripts and tests that write small OpenHRP VRML models on the fly.

``OPENHRP_PROTOS`` declares the three OpenHRP PROTOs a simple body needs (Joint, Segment,
Humanoid), with the fields hrpsim's loader reads; a model file is ``"#VRML V2.0 utf8\n"``, any
comment lines, ``OPENHRP_PROTOS``, then the ``DEF NAME Humanoid { ... }`` body.
"""

OPENHRP_PROTOS = """PROTO Joint [
  exposedField SFVec3f translation 0 0 0
  exposedField SFRotation rotation 0 0 1 0
  exposedField MFNode children [ ]
  exposedField SFString jointType ""
  exposedField SFInt32 jointId -1
  exposedField SFVec3f jointAxis 0 0 1
] { Transform { translation IS translation rotation IS rotation children IS children } }
PROTO Segment [
  exposedField SFVec3f centerOfMass 0 0 0
  exposedField SFFloat mass 0
  exposedField MFFloat momentsOfInertia [ 0 0 0 0 0 0 0 0 0 ]
  exposedField MFNode children [ ]
] { Group { children IS children } }
PROTO Humanoid [
  exposedField SFString name ""
  exposedField MFString info [ ]
  exposedField MFNode humanoidBody [ ]
  exposedField MFNode joints [ ]
  exposedField MFNode segments [ ]
  exposedField SFString version "1.1"
] { Group { children IS humanoidBody } }
"""
