"""The framework-agnostic core: rewards, schedules, advantage estimators, hooks and the CLI."""
