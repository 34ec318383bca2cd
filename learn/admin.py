"""The admin's view of learning progress (read-only: answers are recorded by the lessons)."""

from django.contrib import admin

from learn.models import LessonProgress


@admin.register(LessonProgress)
class LessonProgressAdmin(admin.ModelAdmin):
    """Who solved which lesson, and after how many answers."""

    list_display = ("user", "course", "lesson", "tries", "solved_at", "updated_at")
    list_filter = ("course", "lesson")
    search_fields = ("user__username",)
    readonly_fields = ("user", "course", "lesson", "tries", "solved_at", "updated_at")
