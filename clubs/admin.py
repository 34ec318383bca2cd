"""Django admin for every accounts and clubs model, with useful lists and search."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.translation import gettext_lazy as _

from clubs.models import ApiToken, Club, Invitation, JoinRequest, Membership, User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Users with their profile fields."""

    list_display = ["username", "display_name", "email", "language", "time_zone", "is_staff"]
    list_filter = ["language", "is_staff", "is_superuser", "is_active"]
    search_fields = ["username", "display_name", "email"]
    fieldsets = [
        *DjangoUserAdmin.fieldsets,
        (_("Profile"), {"fields": ["display_name", "language", "time_zone"]}),
    ]


class MembershipInline(admin.TabularInline):
    """Members listed on the club's admin page."""

    model = Membership
    extra = 0
    raw_id_fields = ["user"]


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    """Clubs with their join policy and creation date."""

    list_display = ["name", "slug", "city", "join_policy", "visibility", "created_at"]
    list_filter = ["join_policy", "visibility"]
    search_fields = ["name", "slug", "city", "description"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    """Memberships with roles."""

    list_display = ["user", "club", "role", "joined_at"]
    list_filter = ["role"]
    search_fields = ["user__username", "user__display_name", "club__name", "club__slug"]
    raw_id_fields = ["user", "club"]
    list_select_related = ["user", "club"]


@admin.register(JoinRequest)
class JoinRequestAdmin(admin.ModelAdmin):
    """Join requests and their decisions."""

    list_display = ["user", "club", "status", "created_at", "decided_at", "decided_by"]
    list_filter = ["status"]
    search_fields = ["user__username", "user__display_name", "club__name", "message"]
    raw_id_fields = ["user", "club", "decided_by"]
    list_select_related = ["user", "club", "decided_by"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """Invitation links with their usage."""

    list_display = ["club", "created_by", "created_at", "expires_at", "uses", "max_uses"]
    list_display += ["revoked"]
    list_filter = ["revoked"]
    search_fields = ["club__name", "club__slug", "token", "created_by__username"]
    raw_id_fields = ["club", "created_by"]
    readonly_fields = ["token"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """API tokens (only a digest is stored; the key is never shown)."""

    list_display = ["name", "user", "prefix", "created_at", "last_used_at"]
    search_fields = ["name", "user__username", "prefix"]
    raw_id_fields = ["user"]
    readonly_fields = ["prefix", "digest", "created_at", "last_used_at"]
