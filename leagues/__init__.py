"""Leagues (联赛): seasons of fixtures over weeks, divisions, and team matches between clubs."""
