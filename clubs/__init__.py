"""Accounts, player profiles, clubs, memberships and roles, join requests, invitations."""
