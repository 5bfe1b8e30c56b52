"""Generated entry point of plug-in policy 'rollout'."""
