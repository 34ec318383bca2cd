"""The outbox API: routes (urls), views and serializers."""
