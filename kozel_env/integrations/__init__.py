"""Glue between the Kozel environments and other libraries' training stacks. Each module imports its own
library (``kozel_env.integrations.rllib`` imports Ray); ``import kozel_env`` imports none of them."""
