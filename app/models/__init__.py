"""All models, imported so Alembic and create_app see every table."""
from app.models.admin_state import AdminState
from app.models.album_part import AlbumPart
from app.models.audit import AuditEntry
from app.models.broadcast import BroadcastJob, BroadcastJobItem
from app.models.broadcast_button import BroadcastButton, BroadcastItemClick
from app.models.broadcast_stars import BroadcastStars
from app.models.chain import Chain, ChainDelivery, ChainStep
from app.models.processed_update import ProcessedUpdate
from app.models.pump_run import CronWatch, PumpRun
from app.models.recurring import RecurringBroadcast, RecurringOccurrence
from app.models.segment import Segment
from app.models.setting import Setting
from app.models.stats_snapshot import StatsSnapshot
from app.models.telegram_budget import TelegramBudget, TelegramChatPace
from app.models.user import User
from app.models.user_data import ImportRow, SourceTag, UserField, UserTag

__all__ = ["AdminState", "AlbumPart", "AuditEntry", "BroadcastButton", "BroadcastItemClick", "BroadcastJob",
           "BroadcastJobItem", "BroadcastStars", "Chain",
           "ChainDelivery", "ChainStep", "CronWatch", "ImportRow",
           "ProcessedUpdate", "PumpRun", "RecurringBroadcast", "RecurringOccurrence", "Segment", "Setting", "SourceTag",
           "StatsSnapshot", "TelegramBudget", "TelegramChatPace", "User", "UserField", "UserTag"]
