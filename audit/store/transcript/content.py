"""The metadata that record texts carry (``<USER_REQUEST>`` blocks, ``Created At:`` headers,
exit-code sentences, ...) as typed fields (``parse_content``); the raw text stays on the record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import overload


@dataclass(frozen=True)
class SettingChange:
    setting: str  # e.g. "Model Selection"
    old: str
    new: str


@dataclass(frozen=True)
class ArtifactComment:
    uri: str
    text: str  # the text after the URI up to the next comment or <USER_REQUEST>
    approved: bool


@dataclass(frozen=True)
class FileChange:
    path: str  # as written: a path for tool changes, a file:// URI for created files
    tool: str | None  # None for "Created file ..."
    created: bool


@dataclass(frozen=True)
class ContentInfo:
    user_request: str | None  # inner text, nested metadata blocks removed, stripped
    additional_metadata: tuple[str, ...]
    local_time: str | None  # from "The current local time is: ..."
    setting_changes: tuple[SettingChange, ...]
    artifact_comments: tuple[ArtifactComment, ...]
    created_at: str | None  # "Created At:" header (local offset)
    completed_at: str | None
    exit_code: int | None  # "The command exited with code N."
    task_id: str | None  # background task id "<conversation>/task-<N>"
    task_log_uri: str | None
    file_changes: tuple[FileChange, ...]
    diff_blocks: tuple[str, ...]
    file_path: str | None  # VIEW_FILE "File Path:"
    total_lines: int | None


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"<{name}>(.*?)</{name}>", re.S)


_USER_REQUEST = _block("USER_REQUEST")
_ADDITIONAL = _block("ADDITIONAL_METADATA")
_SETTINGS = _block("USER_SETTINGS_CHANGE")
_LOCAL_TIME = re.compile(r"The current local time is:[ \t]*([^\n]*?)\.?[ \t]*(?:\n|$)")
_SETTING = re.compile(r"changed setting `([^`]*)` from (.+?) to (.+?)\.(?=\s|$)")
_COMMENT = re.compile(r"Comments on artifact URI: (\S+)")
_APPROVED = "The user has approved this document."
_CREATED_AT = re.compile(r"^Created At:[ \t]*(.*?)[ \t]*$", re.M)
_COMPLETED_AT = re.compile(r"^Completed At:[ \t]*(.*?)[ \t]*$", re.M)
_EXIT = re.compile(r"^[ \t]*The command exited with code (-?\d+)\.", re.M)
_TASK_ID = re.compile(r"Tool is running as a background task with task id: (\S+)")
_TASK_LOG = re.compile(r"Task logs are available at: (\S+)")
_CHANGED = re.compile(r"^The following changes were made by the (\S+) tool to: (.+?)\.?[ \t]*$", re.M)
_CREATED_FILE = re.compile(r"Created file (\S+)")
_DIFF = re.compile(r"\[diff_block_start\]\n?(.*?)\n?\[diff_block_end\]", re.S)
_FILE_PATH = re.compile(r"^File Path:[ \t]*`?([^`\n]*?)`?[ \t]*$", re.M)
_TOTAL_LINES = re.compile(r"^Total Lines:[ \t]*(\d+)", re.M)


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    m = pattern.search(text)
    return m.group(1) if m else None


@overload
def _uri(text: str) -> str: ...
@overload
def _uri(text: str | None) -> str | None: ...
def _uri(text: str | None) -> str | None:
    return text.rstrip(".,") if text is not None else None


def user_request(text: str) -> str | None:
    """``parse_content(text).user_request`` alone: the inner text of the first ``<USER_REQUEST>``
    block, nested metadata blocks removed, stripped (None without one)."""
    request = _first(_USER_REQUEST, text)
    if request is not None:
        request = _SETTINGS.sub("", _ADDITIONAL.sub("", request)).strip()
    return request


def command_exit_code(text: str) -> int | None:
    """``parse_content(text).exit_code`` alone: N of the first "The command exited with code N." line."""
    code = _first(_EXIT, text)
    return int(code) if code is not None else None


def parse_content(text: str) -> ContentInfo:
    """Typed view of the metadata a record's text carries; absent items are None / empty."""
    request = user_request(text)
    additional = tuple(m.strip() for m in _ADDITIONAL.findall(text))
    local_time = next((t for block in additional if (t := _first(_LOCAL_TIME, block))), None)
    changes = tuple(SettingChange(*m.groups()) for block in _SETTINGS.findall(text) for m in _SETTING.finditer(block))
    comments = []
    starts = list(_COMMENT.finditer(text))
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        request_at = text.find("<USER_REQUEST>", m.end(), end)
        body = text[m.end() : end if request_at < 0 else request_at].strip()
        comments.append(ArtifactComment(m.group(1), body, _APPROVED in body))
    total = _first(_TOTAL_LINES, text)
    files = [FileChange(m.group(2), m.group(1), False) for m in _CHANGED.finditer(text)]
    files += [FileChange(_uri(m.group(1)), None, True) for m in _CREATED_FILE.finditer(text)]
    return ContentInfo(
        user_request=request,
        additional_metadata=additional,
        local_time=local_time,
        setting_changes=changes,
        artifact_comments=tuple(comments),
        created_at=_first(_CREATED_AT, text),
        completed_at=_first(_COMPLETED_AT, text),
        exit_code=command_exit_code(text),
        task_id=_uri(_first(_TASK_ID, text)),
        task_log_uri=_uri(_first(_TASK_LOG, text)),
        file_changes=tuple(files),
        diff_blocks=tuple(_DIFF.findall(text)),
        file_path=_first(_FILE_PATH, text),
        total_lines=int(total) if total is not None else None,
    )
