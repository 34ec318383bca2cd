"""The reviews' API: a finished match's review by the strong bot."""
