"""The sheets API: routes (urls), views and serializers."""
