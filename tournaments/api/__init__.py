"""The tournaments API: routes (urls), views and serializers."""
