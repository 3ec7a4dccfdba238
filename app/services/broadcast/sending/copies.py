"""Each recipient's call of a job: its language variant's method and parameters, its copy, link and greeting."""
from __future__ import annotations

from app.models.broadcast import ACTION_KINDS, KIND_EDIT, REPEATABLE_KINDS, BroadcastJob
from app.services.broadcast.content import field_text, greeting, text_rules
from app.services.broadcast.content.methods import FOLLOW, action_params, by_variant, message_params, target_params
from app.services.broadcast.reporting import clicks
from app.services.broadcast.sending.claims import Claim
from app.services.broadcast.sending.outcomes import Outcome, no_variant_text, too_long_for
from app.texts import lang_of


class Copies:
    """The calls one job makes, read once from the job; call_for() gives a claimed item's own, or its refusal."""

    def __init__(self, job: BroadcastJob):
        self.action = job.kind in ACTION_KINDS
        self.repeatable = job.kind in REPEATABLE_KINDS  # a lost answer is asked again (never a pin's)
        method, params = action_params(job) if self.action else message_params(job, job.paid)
        self.method = method
        # Messages one recipient's send puts out (an album's parts): each takes a rate slot.
        # An album's keyboard message is one more (content/methods.FOLLOW, sent by follow_up.deliver).
        self.follow = FOLLOW in params
        self.parts = (len(params.get("message_ids") or ()) or 1) + self.follow
        # Each language variant's method and parameters; a claim without a variant gets the default's.
        self.calls = by_variant(job, method, params)
        self.strict = job.kind == KIND_EDIT  # an edit's copies get their own variant's text, or none
        if self.strict and job.text is None:
            del self.calls[None]  # an edit of named variants only: the default's copies are not its to edit
        # Each copy greets its recipient by name, or fills in their custom fields ({field:plan}).
        self.fields = bool(field_text.job_fields(job))
        self.personal = greeting.is_personal(job) or self.fields
        self.track = clicks.tracker(job)  # each copy's button gets its own tracked link (see clicks.tracker)

    def call_for(self, claim: Claim) -> tuple[str, dict] | Outcome:
        """Return one claimed item's (method, parameters), or the outcome that refuses it without a request."""
        call = self.calls.get(claim.variant)
        if call is None and not self.strict:
            call = self.calls[None]  # a send or unsend: a variant without its own call
        if call is None:
            # An edit never gives a copy another variant's text: without its own, that copy fails.
            return no_variant_text(claim.variant)
        method, params = call
        params = self.personal_params(params, claim)
        return self.too_long(params) or (method, params)

    def personal_params(self, params: dict, claim: Claim) -> dict:
        """Return the call's parameters for this claimed item: an action's copy, a tracked link, a greeting by name."""
        if self.action:
            params = target_params(self.method, params, claim.message_id, claim.part_ids)
        if self.track:
            params = self.track(params, claim.item_id, claim.user_id, claim.variant)
        if not self.personal or not params.keys() & {"text", "caption"}:  # an A/B copy version has neither
            return params
        # A send or a text edit carries "text"; an album's edit, its "caption".
        key = "caption" if "caption" in params else "text"
        text = greeting.render(params[key], claim.first_name, lang_of(claim.language_code))
        return {**params, key: field_text.render(text, claim.fields or {}) if self.fields else text}

    def too_long(self, params: dict) -> Outcome | None:
        """Return the failure of a personal copy its recipient's name made too long for Telegram, else None.

        Measured as Telegram does (text_rules): that copy alone fails, with its
        numbers, and is not sent; the job's other recipients go on.
        """
        if not self.personal or not params.keys() & {"text", "caption"}:
            return None
        key, limit = ("caption", text_rules.CAPTION_LIMIT) if "caption" in params else ("text", text_rules.TEXT_LIMIT)
        try:
            length = text_rules.visible_length(params[key])
        except ValueError:  # HTML the checks before sending never let through: Telegram answers for it
            return None
        return too_long_for(length, limit) if length > limit else None
