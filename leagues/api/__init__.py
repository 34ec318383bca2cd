"""The league API: routes (urls), views and serializers."""
