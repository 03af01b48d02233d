"""The page agent's JavaScript modules, read as package resources by ``agent_source``."""
