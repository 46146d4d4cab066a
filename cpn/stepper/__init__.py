from .session import FiringRecord, Message, ReplayError, Stepper, Table, replay

__all__ = ["Stepper", "Message", "Table", "replay", "ReplayError", "FiringRecord"]
