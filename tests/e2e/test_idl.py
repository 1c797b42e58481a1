"""The generated Python stubs match the OpenHRP 3.1 wire interface, fact by fact.

Everything expected is written out below from spec/openhrp-interfaces.md: the repository ID
of every type, the members of every struct and exception in order with their types, the
members of every enum in order, every typedef, and every interface's bases, operations (in
declaration order, with return type, parameter directions and types, raised exceptions,
oneway) and attributes. The tests compare those tables with omniORB's type descriptors (the
`_d_` tuples the stubs register, which are what the ORB marshals by), so a renamed, moved,
reordered, retyped, added or missing item fails a test.

Types are compared in their wire form: typedefs are expanded (an alias and the type it names
are the same bytes in CDR), while structs, exceptions, enums and interfaces are compared by
repository ID and checked on their own. No server is started.
"""

import inspect
import pathlib
import sys

import pytest

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[2] / "python"
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

import omniORB  # noqa: E402
from omniORB import tcInternal as tc  # noqa: E402

try:
    from hrpsim._idl import OpenHRP, OpenHRP__POA, OpenRTM, OpenRTM__POA  # noqa: E402
except ImportError as exc:  # pragma: no cover - only when the stubs were never generated
    raise ImportError(
        "hrpsim._idl is missing: build the Python stubs first "
        "(ninja -C <build dir> python_stubs)") from exc


# ---- notation for expected types ---------------------------------------------------------
#
# A type is a primitive name ("double", "string", ...), the scoped name of a declared type
# ("DblArray3", "ModelLoader::AABBdataType", "OpenRTM::ExtTrigExecutionContextService"), or
# seq(T), seq(T, bound), arr(T, length).

PRIMITIVES = {
    "short": tc.tv_short, "long": tc.tv_long, "float": tc.tv_float,
    "double": tc.tv_double, "boolean": tc.tv_boolean, "octet": tc.tv_octet,
}


def seq(t, bound=0):
    return ("seq", t, bound)


def arr(t, length):
    return ("arr", t, length)


def repo_id(name):
    """Default repository ID of a scoped name: no prefix in OpenHRP, OpenRTM's own prefix."""
    if name.startswith("OpenRTM::"):
        return "IDL:openrtm.aist.go.jp/" + name.replace("::", "/") + ":1.0"
    return "IDL:OpenHRP/" + name.replace("::", "/") + ":1.0"


# ---- every repository ID, written out ------------------------------------------------------

EXPECTED_IDS = """
IDL:OpenHRP/FloatSequence:1.0
IDL:OpenHRP/ShortSequence:1.0
IDL:OpenHRP/OctetSequence:1.0
IDL:OpenHRP/DblArray4:1.0
IDL:OpenHRP/FloatArray3:1.0
IDL:OpenHRP/DblSequence:1.0
IDL:OpenHRP/StringSequence:1.0
IDL:OpenHRP/LongSequence:1.0
IDL:OpenHRP/DblArray3:1.0
IDL:OpenHRP/DblArray6:1.0
IDL:OpenHRP/DblArray9:1.0
IDL:OpenHRP/DblArray12:1.0
IDL:OpenHRP/DblSequence3:1.0
IDL:OpenHRP/DblSequence6:1.0
IDL:OpenHRP/DblSequence9:1.0
IDL:OpenHRP/DblArray3Sequence:1.0
IDL:OpenHRP/DblArray6Sequence:1.0
IDL:OpenHRP/DblArray12Sequence:1.0
IDL:OpenHRP/DblSequenceSequence:1.0
IDL:OpenHRP/LinkPosition:1.0
IDL:OpenHRP/LinkPositionSequence:1.0
IDL:OpenHRP/CharacterPosition:1.0
IDL:OpenHRP/CharacterPositionSequence:1.0
IDL:OpenHRP/LinkPair:1.0
IDL:OpenHRP/LinkPairSequence:1.0
IDL:OpenHRP/CollisionPoint:1.0
IDL:OpenHRP/CollisionPointSequence:1.0
IDL:OpenHRP/Collision:1.0
IDL:OpenHRP/CollisionSequence:1.0
IDL:OpenHRP/Distance:1.0
IDL:OpenHRP/DistanceSequence:1.0
IDL:OpenHRP/WorldState:1.0
IDL:OpenHRP/ExtraJointType:1.0
IDL:OpenHRP/ServerObject:1.0

IDL:OpenHRP/TransformedShapeIndex:1.0
IDL:OpenHRP/TransformedShapeIndexSequence:1.0
IDL:OpenHRP/AllLinkShapeIndexSequence:1.0
IDL:OpenHRP/SensorInfo:1.0
IDL:OpenHRP/SensorInfoSequence:1.0
IDL:OpenHRP/HwcInfo:1.0
IDL:OpenHRP/HwcInfoSequence:1.0
IDL:OpenHRP/LightType:1.0
IDL:OpenHRP/LightInfo:1.0
IDL:OpenHRP/LightInfoSequence:1.0
IDL:OpenHRP/SegmentInfo:1.0
IDL:OpenHRP/SegmentInfoSequence:1.0
IDL:OpenHRP/LinkInfo:1.0
IDL:OpenHRP/LinkInfoSequence:1.0
IDL:OpenHRP/ShapePrimitiveType:1.0
IDL:OpenHRP/ShapeInfo:1.0
IDL:OpenHRP/ShapeInfoSequence:1.0
IDL:OpenHRP/AppearanceInfo:1.0
IDL:OpenHRP/AppearanceInfoSequence:1.0
IDL:OpenHRP/MaterialInfo:1.0
IDL:OpenHRP/MaterialInfoSequence:1.0
IDL:OpenHRP/TextureInfo:1.0
IDL:OpenHRP/TextureInfoSequence:1.0
IDL:OpenHRP/ExtraJointInfo:1.0
IDL:OpenHRP/ExtraJointInfoSequence:1.0
IDL:OpenHRP/ShapeSetInfo:1.0
IDL:OpenHRP/BodyInfo:1.0
IDL:OpenHRP/SceneInfo:1.0
IDL:OpenHRP/ModelLoader:1.0
IDL:OpenHRP/ModelLoader/ModelLoaderException:1.0
IDL:OpenHRP/ModelLoader/AABBdataType:1.0
IDL:OpenHRP/ModelLoader/ModelLoadOption:1.0

IDL:OpenHRP/World:1.0
IDL:OpenHRP/CollisionDetector:1.0
IDL:OpenHRP/CollisionDetectorFactory:1.0

IDL:OpenHRP/SensorState:1.0
IDL:OpenHRP/SensorStateSequence:1.0
IDL:OpenHRP/DynamicsSimulator:1.0
IDL:OpenHRP/DynamicsSimulator/JointDriveMode:1.0
IDL:OpenHRP/DynamicsSimulator/SensorOption:1.0
IDL:OpenHRP/DynamicsSimulator/IntegrateMethod:1.0
IDL:OpenHRP/DynamicsSimulator/LinkDataType:1.0
IDL:OpenHRP/DynamicsSimulatorFactory:1.0

IDL:OpenHRP/PixelFormat:1.0
IDL:OpenHRP/ImageData:1.0
IDL:OpenHRP/Camera:1.0
IDL:OpenHRP/Camera/CameraType:1.0
IDL:OpenHRP/Camera/CameraParameter:1.0
IDL:OpenHRP/CameraSequence:1.0
IDL:OpenHRP/ViewSimulator:1.0
IDL:OpenHRP/ViewSimulatorFactory:1.0

IDL:OpenHRP/Controller:1.0
IDL:OpenHRP/Controller/ControllerException:1.0
IDL:OpenHRP/OnlineViewer:1.0
IDL:OpenHRP/OnlineViewer/OnlineViewerException:1.0
IDL:OpenHRP/ClockGenerator:1.0
IDL:openrtm.aist.go.jp/OpenRTM/ExtTrigExecutionContextService:1.0
""".split()


# ---- typedefs -------------------------------------------------------------------------------

TYPEDEFS = {
    "FloatSequence": seq("float"),
    "ShortSequence": seq("short"),
    "OctetSequence": seq("octet"),
    "DblArray4": arr("double", 4),
    "FloatArray3": arr("float", 3),
    "DblSequence": seq("double"),
    "StringSequence": seq("string"),
    "LongSequence": seq("long"),
    "DblArray3": arr("double", 3),
    "DblArray6": arr("double", 6),
    "DblArray9": arr("double", 9),
    "DblArray12": arr("double", 12),
    "DblSequence3": seq("double", 3),
    "DblSequence6": seq("double", 6),
    "DblSequence9": seq("double", 9),
    "DblArray3Sequence": seq("DblArray3"),
    "DblArray6Sequence": seq("DblArray6"),
    "DblArray12Sequence": seq("DblArray12"),
    "DblSequenceSequence": seq("DblSequence"),
    "LinkPositionSequence": seq("LinkPosition"),
    "CharacterPositionSequence": seq("CharacterPosition"),
    "LinkPairSequence": seq("LinkPair"),
    "CollisionPointSequence": seq("CollisionPoint"),
    "CollisionSequence": seq("Collision"),
    "DistanceSequence": seq("Distance"),
    # ModelLoader
    "TransformedShapeIndexSequence": seq("TransformedShapeIndex"),
    "AllLinkShapeIndexSequence": seq("TransformedShapeIndexSequence"),
    "SensorInfoSequence": seq("SensorInfo"),
    "HwcInfoSequence": seq("HwcInfo"),
    "LightInfoSequence": seq("LightInfo"),
    "SegmentInfoSequence": seq("SegmentInfo"),
    "LinkInfoSequence": seq("LinkInfo"),
    "ShapeInfoSequence": seq("ShapeInfo"),
    "AppearanceInfoSequence": seq("AppearanceInfo"),
    "MaterialInfoSequence": seq("MaterialInfo"),
    "TextureInfoSequence": seq("TextureInfo"),
    "ExtraJointInfoSequence": seq("ExtraJointInfo"),
    # DynamicsSimulator, ViewSimulator
    "SensorStateSequence": seq("SensorState"),
    "CameraSequence": seq("Camera"),
}


# ---- structs and exceptions: members in declaration order -----------------------------------

STRUCTS = {
    "LinkPosition": [("p", "DblArray3"), ("R", "DblArray9")],
    "CharacterPosition": [("characterName", "string"),
                          ("linkPositions", seq("LinkPosition"))],
    "LinkPair": [("charName1", "string"), ("linkName1", "string"), ("charName2", "string"),
                 ("linkName2", "string"), ("tolerance", "double")],
    "CollisionPoint": [("position", "DblArray3"), ("normal", "DblArray3"),
                       ("idepth", "double")],
    "Collision": [("pair", "LinkPair"), ("points", seq("CollisionPoint"))],
    "Distance": [("pair", "LinkPair"), ("minD", "double"), ("point0", "DblArray3"),
                 ("point1", "DblArray3")],
    "WorldState": [("time", "double"), ("characterPositions", seq("CharacterPosition")),
                   ("collisions", seq("Collision"))],
    # ModelLoader
    "TransformedShapeIndex": [("transformMatrix", "DblArray12"),
                              ("inlinedShapeTransformMatrixIndex", "short"),
                              ("shapeIndex", "short")],
    "SensorInfo": [("type", "string"), ("name", "string"), ("id", "long"),
                   ("translation", "DblArray3"), ("rotation", "DblArray4"),
                   ("specValues", "FloatSequence"), ("specFile", "string"),
                   ("shapeIndices", seq("TransformedShapeIndex")),
                   ("inlinedShapeTransformMatrices", "DblArray12Sequence")],
    "HwcInfo": [("name", "string"), ("id", "long"), ("translation", "DblArray3"),
                ("rotation", "DblArray4"), ("url", "string"),
                ("shapeIndices", seq("TransformedShapeIndex")),
                ("inlinedShapeTransformMatrices", "DblArray12Sequence")],
    "LightInfo": [("name", "string"), ("type", "LightType"), ("transformMatrix", "DblArray12"),
                  ("ambientIntensity", "double"), ("attenuation", "DblArray3"),
                  ("color", "DblArray3"), ("intensity", "double"), ("location", "DblArray3"),
                  ("on", "boolean"), ("radius", "double"), ("direction", "DblArray3"),
                  ("beamWidth", "double"), ("cutOffAngle", "double")],
    "SegmentInfo": [("name", "string"), ("mass", "double"), ("centerOfMass", "DblArray3"),
                    ("inertia", "DblArray9"), ("transformMatrix", "DblArray12"),
                    ("shapeIndices", seq("short"))],
    "LinkInfo": [("name", "string"), ("jointId", "short"), ("jointType", "string"),
                 ("jointValue", "double"), ("jointAxis", "DblArray3"),
                 ("ulimit", "DblSequence"), ("llimit", "DblSequence"),
                 ("uvlimit", "DblSequence"), ("lvlimit", "DblSequence"),
                 ("climit", "DblSequence"), ("translation", "DblArray3"),
                 ("rotation", "DblArray4"), ("mass", "double"), ("centerOfMass", "DblArray3"),
                 ("inertia", "DblArray9"), ("rotorInertia", "double"),
                 ("rotorResistor", "double"), ("gearRatio", "double"),
                 ("torqueConst", "double"), ("encoderPulse", "double"),
                 ("parentIndex", "short"), ("childIndices", "ShortSequence"),
                 ("shapeIndices", seq("TransformedShapeIndex")), ("AABBmaxDepth", "short"),
                 ("AABBmaxNum", "short"),
                 ("inlinedShapeTransformMatrices", "DblArray12Sequence"),
                 ("sensors", seq("SensorInfo")), ("hwcs", seq("HwcInfo")),
                 ("segments", seq("SegmentInfo")), ("lights", seq("LightInfo")),
                 ("specFiles", "StringSequence")],
    "ShapeInfo": [("url", "string"), ("primitiveType", "ShapePrimitiveType"),
                  ("primitiveParameters", "FloatSequence"), ("vertices", "FloatSequence"),
                  ("triangles", "LongSequence"), ("appearanceIndex", "long")],
    "AppearanceInfo": [("materialIndex", "long"), ("normals", "FloatSequence"),
                       ("normalIndices", "LongSequence"), ("normalPerVertex", "boolean"),
                       ("solid", "boolean"), ("creaseAngle", "float"),
                       ("colors", "FloatSequence"), ("colorIndices", "LongSequence"),
                       ("colorPerVertex", "boolean"), ("textureIndex", "long"),
                       ("textureCoordinate", "FloatSequence"),
                       ("textureCoordIndices", "LongSequence"),
                       ("textransformMatrix", "DblArray9")],
    "MaterialInfo": [("ambientIntensity", "float"), ("diffuseColor", "FloatArray3"),
                     ("emissiveColor", "FloatArray3"), ("shininess", "float"),
                     ("specularColor", "FloatArray3"), ("transparency", "float")],
    "TextureInfo": [("image", "OctetSequence"), ("numComponents", "short"),
                    ("width", "short"), ("height", "short"), ("repeatS", "boolean"),
                    ("repeatT", "boolean"), ("url", "string")],
    "ExtraJointInfo": [("name", "string"), ("jointType", "ExtraJointType"),
                       ("axis", "DblArray3"), ("link", arr("string", 2)),
                       ("point", arr("DblArray3", 2))],
    "ModelLoader::ModelLoadOption": [("readImage", "boolean"), ("AABBdata", "ShortSequence"),
                                     ("AABBtype", "ModelLoader::AABBdataType")],
    # DynamicsSimulator
    "SensorState": [("q", "DblSequence"), ("dq", "DblSequence"), ("u", "DblSequence"),
                    ("force", seq("DblArray6")), ("rateGyro", seq("DblArray3")),
                    ("accel", seq("DblArray3")), ("range", seq("DblSequence"))],
    # ViewSimulator
    "ImageData": [("format", "PixelFormat"), ("width", "long"), ("height", "long"),
                  ("octetData", seq("octet")), ("longData", seq("long")),
                  ("floatData", seq("float"))],
    "Camera::CameraParameter": [("type", "Camera::CameraType"),
                                ("frontClipDistance", "float"),
                                ("backClipDistance", "float"), ("fieldOfView", "float"),
                                ("sensorId", "long"), ("sensorName", "string"),
                                ("defName", "string"), ("width", "long"), ("height", "long"),
                                ("frameRate", "float")],
}

EXCEPTIONS = {
    "ModelLoader::ModelLoaderException": [("description", "string")],
    "Controller::ControllerException": [("description", "string")],
    "OnlineViewer::OnlineViewerException": [("description", "string")],
}


# ---- enums: members in order ------------------------------------------------------------------

ENUMS = {
    "ExtraJointType": ["EJ_XYZ", "EJ_XY", "EJ_Z"],
    "LightType": ["POINT", "DIRECTIONAL", "SPOT"],
    "ShapePrimitiveType": ["SP_MESH", "SP_BOX", "SP_CYLINDER", "SP_CONE", "SP_SPHERE",
                           "SP_PLANE"],
    "ModelLoader::AABBdataType": ["AABB_DEPTH", "AABB_NUM"],
    "DynamicsSimulator::JointDriveMode": ["HIGH_GAIN_MODE", "TORQUE_MODE"],
    "DynamicsSimulator::SensorOption": ["DISABLE_SENSOR", "ENABLE_SENSOR"],
    "DynamicsSimulator::IntegrateMethod": ["EULER", "RUNGE_KUTTA"],
    "DynamicsSimulator::LinkDataType": [
        "INVALID_DATA_TYPE", "POSITION_GIVEN", "JOINT_VALUE", "JOINT_VELOCITY",
        "JOINT_ACCELERATION", "JOINT_TORQUE", "ABS_TRANSFORM", "ABS_VELOCITY",
        "ABS_ACCELERATION", "EXTERNAL_FORCE", "CONSTRAINT_FORCE"],
    "PixelFormat": ["ARGB", "GRAY", "DEPTH", "RGB"],
    "Camera::CameraType": ["NONE", "COLOR", "MONO", "DEPTH", "COLOR_DEPTH", "MONO_DEPTH"],
}


# ---- interfaces: bases, own attributes, own operations in declaration order -------------------

def op(name, ret, *params, raises=(), oneway=False):
    """An operation; each parameter is "<direction> <type>", e.g. "out LinkPairSequence"."""
    return {"name": name, "ret": ret, "params": [tuple(p.split(" ", 1)) for p in params],
            "raises": list(raises), "oneway": oneway}


CHAR = "in string"  # a character or link name: the most common parameter

INTERFACES = {
    "ServerObject": {"bases": [], "ops": [op("shutdown", "void", oneway=True)]},
    "ShapeSetInfo": {
        "bases": [],
        "attrs": [("shapes", "ShapeInfoSequence"), ("appearances", "AppearanceInfoSequence"),
                  ("materials", "MaterialInfoSequence"), ("textures", "TextureInfoSequence")],
        "ops": []},
    "BodyInfo": {
        "bases": ["ShapeSetInfo"],
        "attrs": [("name", "string"), ("url", "string"), ("info", "StringSequence"),
                  ("links", "LinkInfoSequence"),
                  ("linkShapeIndices", "AllLinkShapeIndexSequence"),
                  ("extraJoints", "ExtraJointInfoSequence")],
        "ops": []},
    "SceneInfo": {
        "bases": ["ShapeSetInfo"],
        "attrs": [("url", "string"), ("shapeIndices", "TransformedShapeIndexSequence")],
        "ops": []},
    "ModelLoader": {
        "bases": ["ServerObject"],
        "ops": [
            op("getBodyInfo", "BodyInfo", "in string",
               raises=["ModelLoader::ModelLoaderException"]),
            op("getBodyInfoEx", "BodyInfo", "in string", "in ModelLoader::ModelLoadOption",
               raises=["ModelLoader::ModelLoaderException"]),
            op("loadBodyInfo", "BodyInfo", "in string",
               raises=["ModelLoader::ModelLoaderException"]),
            op("loadBodyInfoEx", "BodyInfo", "in string", "in ModelLoader::ModelLoadOption",
               raises=["ModelLoader::ModelLoaderException"]),
            op("loadSceneInfo", "SceneInfo", "in string",
               raises=["ModelLoader::ModelLoaderException"]),
            op("clearData", "void"),
        ]},
    "World": {"bases": [], "ops": [op("registerCharacter", "void", "in string", "in BodyInfo")]},
    "CollisionDetector": {
        "bases": ["World"],
        "ops": [
            op("destroy", "void"),
            op("addCollisionPair", "void", "in LinkPair"),
            op("queryIntersectionForDefinedPairs", "boolean", "in boolean",
               "in CharacterPositionSequence", "out LinkPairSequence"),
            op("queryIntersectionForGivenPairs", "boolean", "in boolean",
               "in LinkPairSequence", "in CharacterPositionSequence", "out LinkPairSequence"),
            op("queryContactDeterminationForDefinedPairs", "boolean",
               "in CharacterPositionSequence", "out CollisionSequence"),
            op("queryContactDeterminationForGivenPairs", "boolean", "in LinkPairSequence",
               "in CharacterPositionSequence", "out CollisionSequence"),
            op("queryDistanceForDefinedPairs", "void", "in CharacterPositionSequence",
               "out DistanceSequence"),
            op("queryDistanceForGivenPairs", "void", "in LinkPairSequence",
               "in CharacterPositionSequence", "out DistanceSequence"),
            op("queryDistanceWithRay", "double", "in DblArray3", "in DblArray3"),
            op("scanDistanceWithRay", "DblSequence", "in DblArray3", "in DblArray9",
               "in double", "in double"),
        ]},
    "CollisionDetectorFactory": {
        "bases": ["ServerObject"], "ops": [op("create", "CollisionDetector")]},
    "DynamicsSimulator": {
        "bases": ["World"],
        "ops": [
            op("destroy", "void"),                                                      # 1
            op("init", "void", "in double", "in DynamicsSimulator::IntegrateMethod",
               "in DynamicsSimulator::SensorOption"),                                   # 2
            op("registerCollisionCheckPair", "void", CHAR, CHAR, CHAR, CHAR, "in double",
               "in double", "in DblSequence6", "in DblSequence6", "in double",
               "in double"),                                                            # 3
            op("registerIntersectionCheckPair", "void", CHAR, CHAR, CHAR, CHAR,
               "in double"),                                                            # 4
            op("registerExtraJoint", "void", CHAR, CHAR, CHAR, CHAR, "in DblSequence3",
               "in DblSequence3", "in ExtraJointType", "in DblSequence3",
               "in string"),                                                            # 5
            op("getExtraJointConstraintForce", "void", CHAR, CHAR,
               "out DblSequence6"),                                                     # 6
            op("getCharacterSensorValues", "void", CHAR, CHAR, "out DblSequence"),      # 7
            op("initSimulation", "void"),                                               # 8
            op("stepSimulation", "void"),                                               # 9
            op("setCharacterLinkData", "void", CHAR, CHAR,
               "in DynamicsSimulator::LinkDataType", "in DblSequence"),                 # 10
            op("getCharacterLinkData", "void", CHAR, CHAR,
               "in DynamicsSimulator::LinkDataType", "out DblSequence"),                # 11
            op("getCharacterAllLinkData", "void", CHAR,
               "in DynamicsSimulator::LinkDataType", "out DblSequence"),                # 12
            op("setCharacterAllLinkData", "void", CHAR,
               "in DynamicsSimulator::LinkDataType", "in DblSequence"),                 # 13
            op("setGVector", "void", "in DblSequence3"),                                # 14
            op("getGVector", "void", "out DblSequence3"),                               # 15
            op("setCharacterAllJointModes", "void", CHAR,
               "in DynamicsSimulator::JointDriveMode"),                                 # 16
            op("calcCharacterInverseKinematics", "boolean", CHAR, CHAR, CHAR,
               "in LinkPosition"),                                                      # 17
            op("calcCharacterForwardKinematics", "void", CHAR),                         # 18
            op("calcWorldForwardKinematics", "void"),                                   # 19
            op("checkCollision", "boolean", "in boolean"),                              # 20
            op("checkIntersection", "LinkPairSequence", "in boolean"),                  # 21
            op("checkDistance", "DistanceSequence"),                                    # 22
            op("getWorldState", "void", "out WorldState"),                              # 23
            op("getCharacterSensorState", "void", CHAR, "out SensorState"),             # 24
            op("getCharacterCollidingPairs", "boolean", CHAR,
               "out LinkPairSequence"),                                                 # 25
            op("calcCharacterJacobian", "void", CHAR, CHAR, CHAR,
               "out DblSequence"),                                                      # 26
        ]},
    "DynamicsSimulatorFactory": {
        "bases": ["ServerObject"], "ops": [op("create", "DynamicsSimulator")]},
    "Camera": {
        "bases": [],
        "ops": [op("destroy", "void"),
                op("getCameraParameter", "Camera::CameraParameter"),
                op("getImageData", "ImageData")]},
    "ViewSimulator": {
        "bases": ["World"],
        "ops": [op("destroy", "void"),
                op("getCameraSequence", "void", "out CameraSequence"),
                op("getCameraSequenceOf", "void", "in string", "out CameraSequence"),
                op("updateScene", "void", "in WorldState")]},
    "ViewSimulatorFactory": {
        "bases": ["ServerObject"], "ops": [op("create", "ViewSimulator")]},
    "Controller": {
        "bases": ["ServerObject"],
        "ops": [op("setDynamicsSimulator", "void", "in DynamicsSimulator"),
                op("setModelName", "void", "in string"),
                op("setViewSimulator", "void", "in ViewSimulator"),
                op("start", "void"),
                op("initialize", "void", raises=["Controller::ControllerException"]),
                op("control", "void"),
                op("input", "void"),
                op("output", "void"),
                op("stop", "void"),
                op("destroy", "void"),
                op("setTimeStep", "void", "in double")]},
    "OnlineViewer": {
        "bases": [],
        "ops": [op("update", "void", "in WorldState"),
                op("load", "void", "in string", "in string",
                   raises=["OnlineViewer::OnlineViewerException"]),
                op("clearLog", "void"),
                op("clearData", "void"),
                op("drawScene", "void", "in WorldState"),
                op("setLineWidth", "void", "in float"),
                op("setLineScale", "void", "in float"),
                op("getPosture", "boolean", "in string", "out DblSequence"),
                op("setLogName", "void", "in string")]},
    "ClockGenerator": {
        "bases": [],
        "ops": [op("subscribe", "void", "in OpenRTM::ExtTrigExecutionContextService",
                   "in double"),
                op("unsubscribe", "void", "in OpenRTM::ExtTrigExecutionContextService")]},
    "OpenRTM::ExtTrigExecutionContextService": {"bases": [], "ops": [op("tick", "void")]},
}


# ---- helpers ------------------------------------------------------------------------------------

def wire_expected(t):
    """Canonical wire form of an expected type term (typedefs expanded)."""
    if isinstance(t, tuple):
        kind, inner, n = t
        return (kind, wire_expected(inner), n)
    if t in PRIMITIVES or t == "string":
        return t
    if t in TYPEDEFS:
        return wire_expected(TYPEDEFS[t])
    if t in STRUCTS:
        return ("struct", repo_id(t))
    if t in EXCEPTIONS:
        return ("except", repo_id(t))
    if t in ENUMS:
        return ("enum", repo_id(t))
    if t in INTERFACES:
        return ("objref", repo_id(t))
    raise KeyError("the expected tables do not declare %r" % (t,))


PRIMITIVE_NAMES = {v: k for k, v in PRIMITIVES.items()}


def wire_actual(d):
    """Canonical wire form of an omniORB type descriptor (aliases expanded)."""
    if isinstance(d, int):
        if d not in PRIMITIVE_NAMES:
            raise AssertionError("unexpected primitive type kind %d" % d)
        return PRIMITIVE_NAMES[d]
    kind = d[0]
    if kind == tc.tv_string:
        return "string" if d[1] == 0 else ("bounded string", d[1])
    if kind == tc.tv_alias:
        return wire_actual(d[3])
    if kind == tc.tv_sequence:
        return ("seq", wire_actual(d[1]), d[2])
    if kind == tc.tv_array:
        return ("arr", wire_actual(d[1]), d[2])
    if kind == tc.tv_struct:
        return ("struct", d[2])
    if kind == tc.tv_except:
        return ("except", d[2])
    if kind == tc.tv_enum:
        return ("enum", d[1])
    if kind == tc.tv_objref:
        return ("objref", d[1])
    raise AssertionError("unexpected type descriptor %r" % (d,))


def scoped_name(rid):
    """Scoped name in the tables' notation from a repository ID."""
    body = rid[len("IDL:"):-len(":1.0")]
    if body.startswith("openrtm.aist.go.jp/"):
        return body[len("openrtm.aist.go.jp/"):].replace("/", "::")
    assert body.startswith("OpenHRP/"), rid
    return body[len("OpenHRP/"):].replace("/", "::")


def python_object(name):
    """The stub object for a scoped name, found by its (nested) Python path."""
    parts = name.split("::")
    if parts[0] == "OpenRTM":
        obj, parts = OpenRTM, parts[1:]
    else:
        obj = OpenHRP
    for part in parts:
        obj = getattr(obj, part)
    return obj


def registered(name):
    desc = omniORB.findType(repo_id(name))
    assert desc is not None, "%s is not registered with omniORB" % repo_id(name)
    return desc


def is_op_descriptor(value):
    return (isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], tuple))


# ---- the tables are complete and consistent ------------------------------------------------------

ALL_NAMES = {**{n: "typedef" for n in TYPEDEFS}, **{n: "struct" for n in STRUCTS},
             **{n: "exception" for n in EXCEPTIONS}, **{n: "enum" for n in ENUMS},
             **{n: "interface" for n in INTERFACES}}


def test_tables_cover_exactly_the_expected_ids():
    assert len(EXPECTED_IDS) == len(set(EXPECTED_IDS))
    assert sorted(repo_id(n) for n in ALL_NAMES) == sorted(EXPECTED_IDS)


def test_stubs_register_exactly_the_expected_ids():
    ours = {rid for rid in omniORB.typeMapping
            if rid.startswith("IDL:OpenHRP/") or rid.startswith("IDL:openrtm.aist.go.jp/")}
    assert sorted(ours - set(EXPECTED_IDS)) == [], "types the spec does not have"
    assert sorted(set(EXPECTED_IDS) - ours) == [], "types of the spec that are missing"


KIND_OF_DESCRIPTOR = {"typedef": tc.tv_alias, "struct": tc.tv_struct,
                      "exception": tc.tv_except, "enum": tc.tv_enum,
                      "interface": tc.tv_objref}


@pytest.mark.parametrize("rid", EXPECTED_IDS)
def test_repository_id(rid):
    name = scoped_name(rid)
    kind = ALL_NAMES[name]
    # the Python name at the expected (possibly nested) place carries the ID
    obj = python_object(name)
    assert obj._NP_RepositoryId == rid
    # omniORB knows the ID as a type of the right kind
    desc = omniORB.findType(rid)
    assert desc is not None
    assert desc[0] == KIND_OF_DESCRIPTOR[kind]
    if kind == "interface":
        # the client proxy and the servant skeleton carry it too
        module_name = name.split("::")[0] if name.startswith("OpenRTM::") else "OpenHRP"
        leaf = name.split("::")[-1]
        objref = getattr(OpenRTM if module_name == "OpenRTM" else OpenHRP, "_objref_" + leaf)
        poa = getattr(OpenRTM__POA if module_name == "OpenRTM" else OpenHRP__POA, leaf)
        assert objref._NP_RepositoryId == rid
        assert poa._NP_RepositoryId == rid


# ---- typedefs ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(TYPEDEFS))
def test_typedef(name):
    desc = registered(name)
    assert desc[0] == tc.tv_alias
    assert desc[2] == name.split("::")[-1]
    assert wire_actual(desc[3]) == wire_expected(TYPEDEFS[name])


# ---- structs and exceptions ----------------------------------------------------------------------

def members_of(desc):
    # (kind, class, repository id, name, member1, type1, member2, type2, ...)
    return [(desc[i], wire_actual(desc[i + 1])) for i in range(4, len(desc), 2)]


@pytest.mark.parametrize("name", list(STRUCTS) + list(EXCEPTIONS))
def test_members_in_order(name):
    expected = STRUCTS.get(name) or EXCEPTIONS[name]
    desc = registered(name)
    assert desc[0] == (tc.tv_struct if name in STRUCTS else tc.tv_except)
    assert desc[3] == name.split("::")[-1]
    assert members_of(desc) == [(m, wire_expected(t)) for m, t in expected]
    # the Python class takes the members positionally in the same order
    cls = python_object(name)
    assert desc[1] is cls
    params = list(inspect.signature(cls.__init__).parameters)[1:]
    assert params == [m for m, _ in expected]


# ---- enums ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(ENUMS))
def test_enum_members_in_order(name):
    desc = registered(name)
    assert desc[0] == tc.tv_enum
    assert desc[2] == name.split("::")[-1]
    items = desc[3]
    assert [item._n for item in items] == ENUMS[name]
    assert [item._v for item in items] == list(range(len(ENUMS[name])))
    # each member is reachable where IDL scoping puts it (next to the enum)
    scope = python_object("::".join(name.split("::")[:-1])) if "::" in name else OpenHRP
    for value, member in enumerate(ENUMS[name]):
        assert getattr(scope, member)._v == value
        assert getattr(scope, member)._parent_id == repo_id(name)


# ---- interfaces ----------------------------------------------------------------------------------

def operations_of(cls):
    """(name, descriptor) of the operations an interface declares itself, in order."""
    return [(key[len("_d_"):], value) for key, value in vars(cls).items()
            if key.startswith("_d_") and not key.startswith(("_d__get_", "_d__set_"))
            and is_op_descriptor(value)]


def expected_signature(o):
    ins = tuple(wire_expected(t) for d, t in o["params"] if d in ("in", "inout"))
    outs = tuple(wire_expected(t) for d, t in o["params"] if d in ("out", "inout"))
    if o["oneway"]:
        return ins, None, None
    if o["ret"] != "void":
        outs = (wire_expected(o["ret"]),) + outs
    raises = sorted(repo_id(e) for e in o["raises"]) or None
    return ins, outs, raises


def actual_signature(desc):
    ins, outs, raises = desc
    return (tuple(wire_actual(t) for t in ins),
            None if outs is None else tuple(wire_actual(t) for t in outs),
            sorted(raises) if raises else None)


def all_operation_names(name):
    """Every request name a servant of the interface answers, inherited ones included."""
    spec = INTERFACES[name]
    names = {o["name"] for o in spec["ops"]} | {"_get_" + a for a, _ in spec.get("attrs", [])}
    for base in spec["bases"]:
        names |= all_operation_names(base)
    return names


@pytest.mark.parametrize("name", list(INTERFACES))
def test_interface(name):
    spec = INTERFACES[name]
    cls = python_object(name)
    # bases
    assert [b._NP_RepositoryId for b in cls.__bases__ if hasattr(b, "_NP_RepositoryId")] \
        == [repo_id(b) for b in spec["bases"]]
    # operations, in declaration order, with their signatures
    actual = operations_of(cls)
    assert [n for n, _ in actual] == [o["name"] for o in spec["ops"]]
    for (op_name, desc), o in zip(actual, spec["ops"]):
        assert actual_signature(desc) == expected_signature(o), op_name
    # attributes: all readonly
    for attr_name, attr_type in spec.get("attrs", []):
        get = getattr(cls, "_d__get_" + attr_name)
        assert actual_signature(get) == ((), (wire_expected(attr_type),), None), attr_name
        assert not hasattr(cls, "_d__set_" + attr_name), attr_name
    attrs = [k[len("_d__get_"):] for k in vars(cls) if k.startswith("_d__get_")]
    assert attrs == [a for a, _ in spec.get("attrs", [])]
    assert not [k for k in vars(cls) if k.startswith("_d__set_")]
    # the client proxy has a method per operation and attribute
    module = OpenRTM if name.startswith("OpenRTM::") else OpenHRP
    objref = getattr(module, "_objref_" + name.split("::")[-1])
    for o in spec["ops"]:
        assert callable(getattr(objref, o["name"]))
    for attr_name, _ in spec.get("attrs", []):
        assert callable(getattr(objref, "_get_" + attr_name))
    # the servant skeleton dispatches exactly the expected requests
    poa_module = OpenRTM__POA if name.startswith("OpenRTM::") else OpenHRP__POA
    poa = getattr(poa_module, name.split("::")[-1])
    assert set(poa._omni_op_d) == all_operation_names(name)


def test_dynamics_simulator_has_26_operations():
    assert len(operations_of(OpenHRP.DynamicsSimulator)) == 26
