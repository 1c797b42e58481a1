"""A simulation's whole state, saved by ``Simulation.save_state()`` (see docs/python.md).

``State`` holds the core's bytes (core/core.h, ``hs_saveState``: versioned, for one build's
record layout, checksummed, with the identity of the simulation it came from) and a few facts
read from it for people: the simulated time, the step count, the back end and the engine it
was saved on, the characters. It pickles (a sweep sends one to its workers) and compares by
its bytes. ``Simulation.restore_state(state)`` on any back end continues from it: the next
steps give the bits the saved simulation's next steps gave.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class State:
    """One saved simulation state.

    ``data``: the core's bytes (opaque); ``time`` [s] and ``steps``: where it was saved;
    ``backend`` ("local", "server" or "scheduler") and ``engine`` ("ode" or "joint_space"):
    what saved it (a state restores on every back end); ``characters``: the character names,
    in registration order (a state restores only into a simulation of the same characters,
    bodies, pairs and extra joints).
    """

    data: bytes
    time: float
    steps: int
    backend: str = ""
    engine: str = ""
    characters: tuple = ()

    def __repr__(self):
        return ("State(t=%g s, steps=%d, %d bytes, backend=%r, engine=%r, characters=%r)"
                % (self.time, self.steps, len(self.data), self.backend, self.engine,
                   self.characters))

    def __len__(self):
        return len(self.data)
