#!/usr/bin/env python3
"""Generate a large, deterministic synthetic vault for benchmarking `vault`.

The output follows FORMAT.md (format 1) byte for byte, written the way the
tool itself writes files:

* ``vault.yml`` (format 1, locale ko_KR, time zone Asia/Seoul, provider
  offline, model echo), ``.gitattributes`` exactly as FORMAT.md gives it and
  ``.gitignore`` with ``.vault/``;
* ``rooms/<slug>.md``: chat rooms with front-matter (title, created, model,
  sometimes a ``system: |`` block), alternating user/assistant messages with
  strict headers (Korean display date, RFC 3339 time in +09:00, ids ``m-`` +
  12 Crockford base-32 characters unique per room), framed as header, blank
  line, body, blank line, and the prompt marker line at the end;
* ``diary/<yyyy>/<yyyy-mm-dd>-<slug>.md``: diary entries with front-matter
  (id, title, created, updated, tags), a Korean ``# `` date heading with the
  right weekday, and a body.

Text is mostly Korean with some English, built from a few hundred words and
phrases. Assistant replies sometimes hold Markdown headings, lists and fenced
code; about 1 message body in 500 holds, inside a code fence, a line that
looks exactly like a message header, escaped with one leading backslash.

The same seed always gives byte-identical files: everything comes from one
``random.Random(seed)``, no wall-clock time is read, and nothing depends on
set or directory order. With ``--commit`` the vault also becomes a git
repository with one commit whose author, committer and dates are fixed, so
its commit id is reproducible too.

Usage:
    Benchmarks/generate-vault.py OUT_DIR [--seed 42] [--rooms 20000]
        [--entries 30000] [--min-messages 10] [--max-messages 40] [--commit]

The defaults make about 300 MB in about 50,000 files. Only the Python 3
standard library is used.
"""

import argparse
import datetime
import os
import random
import subprocess
import sys
import time
import unicodedata

# --------------------------------------------------------------------------
# Fixed file contents (FORMAT.md)

VAULT_YML = """\
# vault configuration. Never put secrets here: API keys are read from
# environment variables named below.
format: 1
locale: ko_KR            # locale of the dates written in headings
time_zone: Asia/Seoul    # zone used for new timestamps and their headings
provider: offline        # provider used when a room does not name one
model: echo              # model used when a room does not name one
"""

GITATTRIBUTES = """\
# Written by `vault init`.
# Keep every file byte for byte: no end-of-line conversion.
* -text
*.md diff
"""

GITIGNORE = ".vault/\n"

PROMPT_MARKER = "<!-- vault:prompt · write your next message below this line, then run `vault chat` -->"

MODEL = "echo"
PROVIDER = "offline"
OFFSET_SECONDS = 9 * 3600  # Asia/Seoul: +09:00, no daylight saving time since 1988
OFFSET_TEXT = "+09:00"

# Timestamps fall in these ten years (Korea Standard Time).
FIRST_DAY = datetime.date(2016, 1, 1)
LAST_DAY = datetime.date(2025, 12, 31)
EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()

# Fixed identity and dates of the --commit commit.
COMMIT_DATE = "2026-01-01T00:00:00+09:00"
COMMIT_NAME = "bench"
COMMIT_EMAIL = "bench@example.invalid"

# --------------------------------------------------------------------------
# Dates, times, ids

WEEKDAYS_KO = ["월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일"]

_day_cache = {}


def _day(days_since_epoch):
    """(iso date, Korean heading) for a local day number, cached."""
    hit = _day_cache.get(days_since_epoch)
    if hit is None:
        d = datetime.date.fromordinal(EPOCH_ORDINAL + days_since_epoch)
        iso = "%04d-%02d-%02d" % (d.year, d.month, d.day)
        korean = "%d년 %d월 %d일 %s" % (d.year, d.month, d.day, WEEKDAYS_KO[d.weekday()])
        hit = (iso, korean, d.year)
        _day_cache[days_since_epoch] = hit
    return hit


def local_seconds(day):
    """Seconds since the epoch of local midnight (KST) of a date."""
    return (day.toordinal() - EPOCH_ORDINAL) * 86400 - OFFSET_SECONDS


def rfc3339(ts):
    """`2026-11-21T09:31:07+09:00` for a Unix time."""
    local = ts + OFFSET_SECONDS
    days, sec = divmod(local, 86400)
    iso = _day(days)[0]
    h, rem = divmod(sec, 3600)
    m, s = divmod(rem, 60)
    return "%sT%02d:%02d:%02d%s" % (iso, h, m, s, OFFSET_TEXT)


def korean_display(ts):
    """The ko_KR `yMMMMdEEEEjmm` text: `2026년 11월 21일 토요일 오전 9:31`."""
    local = ts + OFFSET_SECONDS
    days, sec = divmod(local, 86400)
    h, rem = divmod(sec, 3600)
    m = rem // 60
    half = "오전" if h < 12 else "오후"
    h12 = h % 12 or 12
    return "%s %s %d:%02d" % (_day(days)[1], half, h12, m)


def day_of(ts):
    """(iso date, Korean heading, year) of the local day of a Unix time."""
    return _day((ts + OFFSET_SECONDS) // 86400)


CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_PAIRS = [a + b for a in CROCKFORD for b in CROCKFORD]  # 10 bits -> 2 characters


def crockford12(rng):
    """12 Crockford base-32 characters from 60 random bits."""
    v = rng.getrandbits(60)
    p = _PAIRS
    return (p[v & 1023] + p[(v >> 10) & 1023] + p[(v >> 20) & 1023]
            + p[(v >> 30) & 1023] + p[(v >> 40) & 1023] + p[v >> 50])


# --------------------------------------------------------------------------
# Slugs and YAML scalars, as the tool writes them

def slugify(title):
    """FORMAT.md slug: NFC, letters/digits kept, ASCII lower-cased, other runs -> '-', <= 60."""
    out = []
    pending_dash = False
    for ch in unicodedata.normalize("NFC", title):
        if ch.isalpha() or ch.isnumeric():
            if pending_dash and out:
                out.append("-")
            pending_dash = False
            out.append(ch.lower() if ch.isascii() else ch)
        else:
            pending_dash = True
        if len(out) >= 60:
            break
    return "".join(out) or "untitled"


def unique_name(base, taken):
    """`base`, or `base-2`, `base-3`, … whichever is not in `taken` (which it joins)."""
    name = base
    n = 2
    while name in taken:
        name = "%s-%d" % (base, n)
        n += 1
    taken.add(name)
    return name


_INDICATORS = set("-?:,[]{}#&*!|>'\"%@` \t")
_RESERVED = {"y", "yes", "n", "no", "true", "false", "on", "off", "null", "~"}


def _is_number(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


def plain_writable(s):
    """FrontMatterEditor.isPlainWritable: safe as a plain YAML scalar on one line."""
    if not s or s[0] in _INDICATORS:
        return False
    if ": " in s or s.endswith(":") or " #" in s or "\t" in s or s.endswith(" ") or "\r" in s:
        return False
    if s.lower() in _RESERVED or _is_number(s) or s.startswith("0x") or s.startswith("0o"):
        return False
    return all(0x20 <= ord(c) != 0x7F and c != "\ufeff" for c in s)


def yaml_scalar(s):
    if plain_writable(s):
        return s
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 0x20 or ord(c) == 0x7F or c == "\ufeff":
            out.append("\\u%04X" % ord(c))
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def yaml_list(key, items):
    """`key: [a, b]`, or `key:` and one `  - item` line per item when flow style is unsafe."""
    if all(plain_writable(i) and not any(c in ",[]{}:" for c in i) for i in items):
        return key + ": [" + ", ".join(items) + "]\n"
    return key + ":\n" + "".join("  - " + yaml_scalar(i) + "\n" for i in items)


def yaml_literal(key, text):
    """`key: |` and its lines, for text that ends with one newline and has no tabs."""
    lines = text[:-1].split("\n")
    return key + ": |\n" + "".join(("  " + l if l else "") + "\n" for l in lines)


# --------------------------------------------------------------------------
# Vocabulary

def _words(s):
    return s.split()


NOUNS_KO = _words("""
여행 일정 회의 프로젝트 코드 서버 데이터베이스 커피 점심 저녁 산책 운동 책 영화 음악 날씨 주말
가족 친구 회사 버그 테스트 배포 문서 계획 예산 숙소 기차 비행기 바다 공원 카페 도서관 시장
김치찌개 라면 비빔밥 케이크 사진 노트북 키보드 모니터 휴대폰 메일 보고서 발표 면접 이력서 공부
시험 영어 일본어 요리 레시피 청소 이사 창문 고양이 강아지 식물 겨울 여름 가을 하늘 아침 오후
새벽 기분 생각 아이디어 질문 답변 설명 예제 함수 변수 구조체 클래스 프로토콜 에러 로그 성능
메모리 캐시 파일 폴더 스크립트 터미널 명령어 설정 권한 네트워크 요청 응답 지하철 버스 택시
자전거 병원 약속 생일 선물 편지 일기 습관 목표 루틴 마감 휴가 리뷰 일정표 체크리스트 기록
동료 팀장 고객 마라톤 요가 수영 등산 캠핑 전시회 공연 콘서트 맛집 빵집 떡볶이 냉면 삼겹살
교토 도쿄 파리 런던 서울 부산 제주도 경주 강릉 전주 한강 남산 해운대 광안리 유튜브 팟캐스트
""")

NOUNS_EN = _words("""
Swift Python Git Docker API JSON YAML Markdown SQLite Linux macOS iPhone Xcode GitHub CI PR README
CLI LLM Obsidian Vim Neovim tmux Kubernetes Postgres Redis HTTP TLS Unicode UTF-8 regex cron
""")

PLACES = _words("""
카페 도서관 회사 집 공원 사무실 한강 지하철 버스 학교 병원 시장 바닷가 호텔 공항 역 편의점
""")

ADVERBS = _words("""
정말 조금 너무 아주 천천히 빨리 다시 먼저 나중에 같이 혼자 요즘 가끔 항상 결국 특히 아마
드디어 일단 오랜만에 생각보다 의외로 확실히 갑자기 꾸준히 겨우 살짝 충분히 미리
""")

TIMES = ["오늘", "어제", "내일", "이번 주", "지난주", "다음 주", "주말에", "아침에", "점심때",
         "저녁에", "밤늦게", "새벽에", "퇴근 후에", "출근길에", "월요일에", "금요일 저녁에",
         "오랜만에", "며칠 전에", "이번 달에", "연휴에"]

ADJECTIVES = ["새로운", "간단한", "복잡한", "중요한", "작은", "큰", "따뜻한", "차가운", "조용한",
              "바쁜", "편한", "좋은", "이상한", "오래된", "빠른", "느린", "깔끔한", "맛있는",
              "재미있는", "지루한", "낯선", "익숙한", "비싼", "저렴한", "멋진", "귀찮은"]

OBJ_VERBS = ["정리했어요", "확인해 주세요", "다시 봤다", "준비하고 있어요", "고쳤습니다", "읽었다",
             "찾아봤어요", "만들어 볼까요?", "바꿔야 할 것 같아요", "추천해 줄 수 있어?",
             "끝냈다", "시작했습니다", "미뤄 두었다", "기록해 두었어요", "공유해 주실 수 있나요?",
             "검토했습니다", "테스트해 봤어요", "다시 설계해야 할까요?", "줄여 보려고 한다",
             "자세히 설명해 줘", "비교해 봤는데 차이가 컸다", "처음부터 다시 짰다",
             "잊어버리지 않게 메모했다", "어떻게 하면 좋을까요?", "한 번 더 돌려 봤어요"]

PREDICATES = ["생각보다 괜찮았다", "꽤 복잡했어요", "잘 되고 있어요", "아직 끝나지 않았다",
              "예상보다 오래 걸렸습니다", "정말 마음에 들었다", "조금 아쉬웠어요",
              "금방 해결됐습니다", "다시 문제가 생겼다", "훨씬 빨라졌어요", "여전히 헷갈린다",
              "중요한 것 같아요", "별로 어렵지 않았다", "계속 신경이 쓰인다", "괜찮은 선택이었다",
              "생각할수록 좋은 것 같다", "예전보다 나아졌습니다", "아직 잘 모르겠어요"]

COMPARE_PREDS = ["좋아요", "낫습니다", "편해요", "빨라요", "중요해요", "간단합니다", "안전해요"]

FEELINGS = ["조금 피곤했다", "기분이 좋아졌어요", "걱정이 된다", "하루 종일 바빴다",
            "마음이 편해졌다", "계획을 바꿨어요", "잠을 설쳤다", "웃음이 났다",
            "생각이 많아졌다", "시간이 금방 갔다", "힘이 났어요", "한숨 돌렸다"]

TALK_ENDINGS = ["알려 줘", "설명해 주세요", "더 자세히 알고 싶어요", "어떻게 생각해?",
                "정리해 줄 수 있어?", "예시를 들어 주세요", "장단점을 비교해 줘",
                "처음부터 차근차근 알려 주세요", "짧게 요약해 줘"]

CONNECTIVES = ["그리고", "그런데", "그래서", "하지만", "게다가", "그러니까", "참고로", "한편",
               "사실", "물론"]

EN_SUBJECTS = ["The cache", "The parser", "This build", "The test suite", "Our deadline",
               "The trip", "The schedule", "The meeting", "The budget", "This file",
               "That function", "The config", "The release", "The benchmark", "The index",
               "The query", "My laptop", "The new layout", "The migration", "The team"]

EN_VERBS = ["looks fine", "needs another pass", "is slower than expected", "finally works",
            "breaks on large inputs", "should be simpler", "keeps every byte", "was rewritten",
            "is almost done", "depends on the locale", "runs in under a second",
            "needs a clearer name", "was merged yesterday", "handles CRLF correctly",
            "fails only on Linux", "reads the whole file", "is worth a benchmark"]

EN_TAILS = ["", "", "", " today", " for now", " after the refactor", " on my machine",
            " in most cases", " again", " if we keep it simple", " with the new flag"]

EN_QUESTIONS = ["Can you explain how {n} handles {n2}?", "What is the best way to test {n}?",
                "Is {n} a good fit for this?", "Why does {n} break with {n2}?",
                "How do I configure {n} for {n2}?", "Could you compare {n} and {n2}?",
                "Any tips for learning {n}?"]

TITLE_TOPICS = ["부산 여행", "제주도 일정", "교토 가을 여행", "Swift 동시성", "Python 스크립트",
                "Git 브랜치 전략", "Docker 설정", "이사 준비", "면접 준비", "영어 공부",
                "일본어 문법", "저녁 메뉴", "주말 계획", "운동 루틴", "독서 목록", "회의록 정리",
                "보고서 초안", "발표 자료", "예산 계획", "캠핑 준비물", "생일 선물", "블로그 글",
                "API 설계", "SQLite 인덱스", "Markdown 파서", "YAML front-matter", "CLI 옵션",
                "테스트 전략", "성능 개선", "메모리 누수", "로그 분석", "배포 자동화",
                "Kubernetes 입문", "Postgres 쿼리", "정규식 질문", "Vim 설정", "마라톤 훈련",
                "요리 레시피", "식물 키우기", "고양이 건강", "강아지 산책", "커피 추출",
                "사진 보정", "여름 휴가", "겨울 옷 정리", "가계부", "시간 관리", "글쓰기 연습",
                "Unicode 정규화", "UTF-8 인코딩", "README 작성", "코드 리뷰", "PR 설명",
                "Obsidian 활용", "tmux 단축키", "cron 작업", "HTTP 캐시", "TLS 인증서",
                "travel budget", "weekly review", "reading notes", "side project ideas",
                "resume rewrite", "trip to Seoul", "async/await questions", "release checklist"]

TITLE_SUFFIXES = ["", "", "", "", " 질문", " 정리", " 계획", " 아이디어", " 메모", " 2",
                  " 다시", " 상담", " 도와줘", " 비교", " 체크리스트", " 후기", "!", "?",
                  " (초안)", " - part 2", " v2", " 추천", " 문제"]

TITLE_DETAILS = NOUNS_KO + TIMES[:8] + ["2024", "2025", "v1", "beta", "메모 1", "초안 2"]

DIARY_TITLES = ["첫눈", "비 오는 날", "늦잠", "산책", "새 노트북", "이사", "회고", "야근",
                "친구와 저녁", "가족 모임", "생일", "휴가 첫날", "휴가 마지막 날", "한강 자전거",
                "도서관", "카페에서", "마감", "발표 끝", "면접", "운동 기록", "요가",
                "등산", "바다", "시장 구경", "새 프로젝트", "버그 잡은 날", "배포", "조용한 하루",
                "감기", "병원", "봄 꽃", "장마", "더위", "단풍", "눈 오는 밤", "새해 다짐",
                "연말 정리", "이번 주", "오랜만의 휴식", "영화", "공연", "전시회", "독서",
                "요리 실험", "빵 굽기", "고양이", "강아지", "출장", "기차 여행", "공항에서",
                "morning pages", "weekly notes", "small wins", "long day"]

TAGS = ["일상", "여행", "회사", "가족", "친구", "운동", "독서", "영화", "음식", "날씨", "산책",
        "겨울", "봄", "여름", "가을", "감사", "회고", "공부", "코딩", "건강", "휴식", "음악",
        "work", "travel", "reading", "health", "ideas", "swift"]

SYSTEM_PROMPTS = [
    "You are a friendly travel planner. Answer in Korean.",
    "You are a careful senior software engineer.\nAnswer with short, concrete steps.\nShow code when it helps.",
    "너는 친절한 한국어 글쓰기 코치야.\n문장을 짧고 분명하게 고쳐 줘.",
    "You are a concise assistant. Prefer lists over long paragraphs.",
    "당신은 요리 전문가입니다. 재료와 순서를 번호 목록으로 알려 주세요.",
    "You review code for correctness first, style second.\n\nAlways explain why a change matters.",
    "너는 일본어 선생님이야. 예문을 세 개씩 들어 줘.",
    "You are a patient tutor. Ask one question at a time.",
    "당신은 운동 코치입니다.\n무리하지 않는 계획을 세워 주세요.\n부상 위험을 먼저 알려 주세요.",
]

HEADINGS = ["## 요약", "## 정리", "## 단계별 방법", "## 예시", "## 참고", "### 주의할 점",
            "## 첫째 날", "## 둘째 날", "## 결론", "## 추천", "## Summary", "## Steps",
            "### 장점", "### 단점", "## 다음 할 일"]

OPENERS = ["좋은 질문이에요.", "네, 정리해 볼게요.", "알겠습니다.", "Sure, here is a short answer.",
           "물론이죠!", "몇 가지 방법이 있어요.", "간단히 설명하면 다음과 같습니다.",
           "Good question.", "상황에 따라 다르지만 보통은 이렇게 합니다."]

CODE_SNIPPETS = [
    ("swift", "let vault = try Vault(at: url)\nfor room in try vault.rooms() {\n    print(room.title)\n}"),
    ("swift", "func slug(_ title: String) -> String {\n    title.lowercased()\n        .split(whereSeparator: { !$0.isLetter && !$0.isNumber })\n        .joined(separator: \"-\")\n}"),
    ("swift", "actor Counter {\n    private var value = 0\n    func next() -> Int {\n        value += 1\n        return value\n    }\n}"),
    ("python", "import json\n\nwith open(\"data.json\", encoding=\"utf-8\") as f:\n    data = json.load(f)\nprint(len(data))"),
    ("python", "def chunks(items, n):\n    for i in range(0, len(items), n):\n        yield items[i:i + n]"),
    ("bash", "git switch -c feature/diary-search\ngit add -A\ngit commit -m \"일기 검색 추가\""),
    ("bash", "vault chat 부산-여행 \"2박 3일 일정 짜줘\"\nvault show 부산-여행 --locale de_DE"),
    ("bash", "find . -name '*.md' | xargs wc -c | tail -1"),
    ("json", "{\n  \"title\": \"부산 여행\",\n  \"days\": 3,\n  \"budget\": 450000\n}"),
    ("yaml", "title: 부산 여행\ncreated: 2026-11-21T09:30:00+09:00\nmodel: echo"),
    ("sql", "CREATE INDEX idx_entries_created ON entries(created);\nSELECT title FROM entries WHERE created >= '2024-01-01';"),
    ("", "09:00  해운대 산책\n12:00  밀면 점심\n15:00  광안리 카페\n19:00  야경 보기"),
]

EXPLAIN_HEADER_LEADS = [
    "파일 안에서는 메시지 헤더가 이렇게 생겼어요:",
    "이 줄이 그대로 본문에 들어가면 새 메시지로 읽힐까요?",
    "Here is what a header line looks like in the file:",
    "vault 파일을 직접 편집하다가 이런 줄을 붙여 넣었어요:",
]


def josa(word, with_batchim, without_batchim):
    """Korean particle after `word` (은/는, 이/가, 을/를, 과/와)."""
    last = word[-1]
    if "가" <= last <= "힣":
        has = (ord(last) - 0xAC00) % 28 != 0
    else:
        has = last.lower() in "lmn" or word.lower().endswith("ng")
    return word + (with_batchim if has else without_batchim)


class Text:
    """Sentence pools and the generators of message and entry bodies."""

    def __init__(self, rng):
        self.rng = rng
        nouns = NOUNS_KO + NOUNS_KO + NOUNS_EN  # mostly Korean
        self.nouns = nouns
        self.topic = {n: josa(n, "은", "는") for n in nouns}
        self.subj = {n: josa(n, "이", "가") for n in nouns}
        self.obj = {n: josa(n, "을", "를") for n in nouns}
        self.with_ = {n: josa(n, "과", "와") for n in nouns}
        self.ko = [self._korean() for _ in range(24000)]
        self.en = [self._english() for _ in range(6000)]
        self.questions = [self._question() for _ in range(4000)]
        self.items = [self._item() for _ in range(6000)]
        # About 1 sentence in 9 is English.
        self.mixed = self.ko + self.ko + self.en

    # -- sentences -------------------------------------------------------

    def _korean(self):
        r = self.rng
        c = r.choice
        n1, n2, n3 = c(self.nouns), c(self.nouns), c(self.nouns)
        k = r.randrange(9)
        if k == 0:
            s = "%s %s %s" % (c(ADVERBS), self.obj[n1], c(OBJ_VERBS))
        elif k == 1:
            s = "%s %s %s" % (self.topic[n1], c(ADVERBS), c(PREDICATES))
        elif k == 2:
            s = "%s %s 비교해 보면 %s 더 %s" % (self.with_[n1], self.obj[n2], self.subj[n3], c(COMPARE_PREDS))
        elif k == 3:
            s = "%s %s에서 %s %s" % (c(TIMES), c(PLACES), self.obj[n1], c(OBJ_VERBS))
        elif k == 4:
            s = "%s 때문에 %s" % (n1, c(FEELINGS))
        elif k == 5:
            s = "%s %s %s %s" % (c(CONNECTIVES), c(ADJECTIVES), self.topic[n1], c(PREDICATES))
        elif k == 6:
            s = "%s %s %s %s %s" % (c(TIMES), c(ADJECTIVES), self.obj[n1], c(ADVERBS), c(OBJ_VERBS))
        elif k == 7:
            s = "%s %s %s %s" % (self.topic[n1], c(ADJECTIVES), self.subj[n2], c(PREDICATES))
        else:
            s = "%s에 대해 %s" % (n1, c(TALK_ENDINGS))
        if s[-1] not in ".?!":
            s += "." if r.random() < 0.9 else "!"
        return s

    def _english(self):
        r = self.rng
        if r.random() < 0.3:
            return r.choice(EN_QUESTIONS).format(n=r.choice(NOUNS_EN), n2=r.choice(NOUNS_EN))
        return "%s %s%s." % (r.choice(EN_SUBJECTS), r.choice(EN_VERBS), r.choice(EN_TAILS))

    def _question(self):
        r = self.rng
        if r.random() < 0.2:
            return self._english()
        n = r.choice(self.nouns)
        k = r.randrange(4)
        if k == 0:
            return "%s에 대해 %s" % (n, r.choice(TALK_ENDINGS))
        if k == 1:
            return "%s %s %s 어떻게 해야 해?" % (r.choice(TIMES), r.choice(ADJECTIVES), self.obj[n])
        if k == 2:
            return "%s %s 왜 %s" % (self.topic[n], r.choice(ADVERBS), r.choice(["느릴까요?", "안 될까요?", "필요해요?", "중요한가요?"]))
        return "%s %s 추천해 줄 수 있어?" % (r.choice(ADJECTIVES), self.obj[n])

    def _item(self):
        r = self.rng
        k = r.randrange(3)
        if k == 0:
            return "%s %s" % (r.choice(ADJECTIVES), r.choice(self.nouns))
        if k == 1:
            return "%s %s" % (self.obj[r.choice(self.nouns)], r.choice(["확인하기", "준비하기", "정리하기", "예약하기", "비교하기", "줄이기"]))
        s = r.choice(self.ko)
        return s[:-1] if s[-1] == "." else s

    # -- bodies ----------------------------------------------------------

    def paragraph(self, lo, hi):
        return " ".join(self.rng.choices(self.mixed, k=self.rng.randint(lo, hi)))

    def code_block(self):
        lang, code = self.rng.choice(CODE_SNIPPETS)
        return "```%s\n%s\n```" % (lang, code)

    def header_example(self, ts):
        """A code fence holding a line that reads as a message header, escaped (FORMAT.md)."""
        r = self.rng
        t = ts - r.randrange(3600, 400 * 86400)
        if r.random() < 0.5:
            line = "## 🧑 user · %s <!-- %s m-%s -->" % (korean_display(t), rfc3339(t), crockford12(r))
        else:
            line = "## 🤖 assistant · %s · echo <!-- %s m-%s model=echo provider=offline -->" % (
                korean_display(t), rfc3339(t), crockford12(r))
        return "%s\n\n```markdown\n\\%s\n```" % (r.choice(EXPLAIN_HEADER_LEADS), line)

    def user_body(self, ts):
        r = self.rng
        parts = []
        x = r.random()
        if x < 0.25:
            parts.append(r.choice(self.questions))
        elif x < 0.65:
            parts.append(self.paragraph(1, 5) + " " + r.choice(self.questions))
        else:
            parts.append(self.paragraph(2, 6))
            if r.random() < 0.4:
                parts.append(self.paragraph(1, 4))
            parts.append(r.choice(self.questions))
        if r.random() < 0.04:
            parts.append(self.code_block())
        if r.random() < 0.002:
            parts.append(self.header_example(ts))
        return "\n\n".join(parts)

    def assistant_body(self, ts):
        r = self.rng
        parts = []
        if r.random() < 0.5:
            parts.append(r.choice(OPENERS) + " " + self.paragraph(2, 4))
        else:
            parts.append(self.paragraph(2, 6))
        for _ in range(r.randint(1, 4)):
            x = r.random()
            if x < 0.22:
                parts.append(r.choice(HEADINGS) + "\n" + self.paragraph(1, 4))
            elif x < 0.45:
                items = r.choices(self.items, k=r.randint(2, 6))
                if r.random() < 0.5:
                    parts.append("\n".join("- " + i for i in items))
                else:
                    parts.append("\n".join("%d. %s" % (j + 1, i) for j, i in enumerate(items)))
            elif x < 0.55:
                parts.append(self.code_block())
            else:
                parts.append(self.paragraph(2, 5))
        if r.random() < 0.002:
            parts.append(self.header_example(ts))
        return "\n\n".join(parts)

    def diary_body(self):
        r = self.rng
        parts = [self.paragraph(3, 8)]
        for _ in range(r.randint(1, 5)):
            x = r.random()
            if x < 0.15:
                parts.append(r.choice(["## 오늘 한 일", "## 내일 할 일", "## 메모", "## 감사한 것"]))
            if x < 0.35:
                parts.append("\n".join("- " + i for i in r.choices(self.items, k=r.randint(2, 5))))
            else:
                parts.append(self.paragraph(3, 8))
        return "\n\n".join(parts) + "\n"


# --------------------------------------------------------------------------
# Files

def make_title(rng):
    """`부산 여행`, `Swift 동시성 캐시 질문`, …: common enough that some slugs collide."""
    title = rng.choice(TITLE_TOPICS)
    if rng.random() < 0.9:
        title += " " + rng.choice(TITLE_DETAILS)
    return title + rng.choice(TITLE_SUFFIXES)


def make_room(rng, text, min_messages, max_messages, span_start, span_seconds):
    """(title, bytes) of one room file, written as the tool writes it."""
    title = make_title(rng)
    created = span_start + rng.randrange(span_seconds)
    out = ["---\ntitle: ", yaml_scalar(title), "\ncreated: ", rfc3339(created), "\nmodel: ", MODEL, "\n"]
    if rng.random() < 0.25:
        out.append(yaml_literal("system", rng.choice(SYSTEM_PROMPTS) + "\n"))
    out.append("---\n\n")
    t = created + rng.randint(5, 900)
    ids = set()
    for k in range(rng.randint(min_messages, max_messages)):
        mid = crockford12(rng)
        while mid in ids:
            mid = crockford12(rng)
        ids.add(mid)
        if k % 2 == 0:
            if k:
                t += rng.randint(20, 900) if rng.random() < 0.9 else rng.randint(3600, 3 * 86400)
            out.append("## 🧑 user · %s <!-- %s m-%s -->\n\n" % (korean_display(t), rfc3339(t), mid))
            out.append(text.user_body(t))
        else:
            t += rng.randint(1, 40)
            out.append("## 🤖 assistant · %s · %s <!-- %s m-%s model=%s provider=%s -->\n\n"
                       % (korean_display(t), MODEL, rfc3339(t), mid, MODEL, PROVIDER))
            out.append(text.assistant_body(t))
        out.append("\n\n")
    out.append(PROMPT_MARKER)
    out.append("\n")
    return title, "".join(out).encode("utf-8")


def make_entry(rng, text, day_start, days):
    """(year, date, title, bytes) of one diary entry, written as the tool writes it."""
    title = rng.choice(DIARY_TITLES)
    # Mostly evenings; some mornings and late nights (still the same local day).
    hour = rng.choice((7, 8, 12, 19, 20, 21, 21, 22, 22, 23))
    created = day_start + rng.randrange(days) * 86400 + hour * 3600 + rng.randrange(3600)
    x = rng.random()
    if x < 0.6:
        updated = created + rng.randint(60, 2400)
    elif x < 0.9:
        updated = created
    else:
        updated = created + rng.randint(86400, 60 * 86400)
    tags = rng.sample(TAGS, rng.choice((0, 1, 1, 2, 2, 2, 3, 4)))
    iso, korean, year = day_of(created)
    data = "".join([
        "---\nid: d-", crockford12(rng),
        "\ntitle: ", yaml_scalar(title),
        "\ncreated: ", rfc3339(created),
        "\nupdated: ", rfc3339(updated),
        "\n", yaml_list("tags", tags),
        "---\n\n# ", korean, "\n\n",
        text.diary_body(),
    ]).encode("utf-8")
    return year, iso, title, data


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


def git_commit(out_dir):
    env = dict(os.environ)
    env.update({
        "GIT_AUTHOR_NAME": COMMIT_NAME, "GIT_AUTHOR_EMAIL": COMMIT_EMAIL, "GIT_AUTHOR_DATE": COMMIT_DATE,
        "GIT_COMMITTER_NAME": COMMIT_NAME, "GIT_COMMITTER_EMAIL": COMMIT_EMAIL,
        "GIT_COMMITTER_DATE": COMMIT_DATE,
        # Ignore personal and system settings (signing, hooks, templates) so the commit is reproducible.
        "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
    })
    cfg = ["-c", "user.name=" + COMMIT_NAME, "-c", "user.email=" + COMMIT_EMAIL,
           "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", "-c", "init.defaultBranch=main"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "--no-verify", "-m", "synthetic vault"]):
        subprocess.run(["git"] + cfg + args, cwd=out_dir, env=env, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=out_dir, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()
    return head


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Generate a deterministic synthetic vault (FORMAT.md, format 1) for benchmarks.",
        epilog="The same --seed and sizes always give byte-identical files.")
    p.add_argument("out_dir", metavar="OUT_DIR", help="folder to create (must not exist or be empty)")
    p.add_argument("--seed", type=int, default=42, help="random seed (default: 42)")
    p.add_argument("--rooms", type=int, default=20000, help="number of room files (default: 20000)")
    p.add_argument("--entries", type=int, default=30000, help="number of diary entries (default: 30000)")
    p.add_argument("--min-messages", type=int, default=10, help="fewest messages in a room (default: 10)")
    p.add_argument("--max-messages", type=int, default=40, help="most messages in a room (default: 40)")
    p.add_argument("--commit", action="store_true",
                   help="then make OUT_DIR a git repository with one reproducible commit")
    a = p.parse_args(argv)
    if a.rooms < 0 or a.entries < 0:
        p.error("--rooms and --entries must not be negative")
    if a.min_messages < 1 or a.max_messages < a.min_messages:
        p.error("need 1 <= --min-messages <= --max-messages")
    return a


def main(argv=None):
    a = parse_args(argv)
    out = a.out_dir
    if os.path.exists(out):
        if not os.path.isdir(out):
            sys.exit("generate-vault: %s exists and is not a folder" % out)
        if os.listdir(out):
            sys.exit("generate-vault: %s exists and is not empty; give a new or empty folder" % out)
    started = time.monotonic()
    rng = random.Random(a.seed)
    text = Text(rng)

    os.makedirs(os.path.join(out, "rooms"), exist_ok=True)
    os.makedirs(os.path.join(out, "diary"), exist_ok=True)
    total = 0
    total += write(os.path.join(out, "vault.yml"), VAULT_YML.encode("utf-8"))
    total += write(os.path.join(out, ".gitattributes"), GITATTRIBUTES.encode("utf-8"))
    total += write(os.path.join(out, ".gitignore"), GITIGNORE.encode("utf-8"))

    span_start = local_seconds(FIRST_DAY)
    days = LAST_DAY.toordinal() - FIRST_DAY.toordinal() + 1
    room_span = (days - 30) * 86400  # leave room for the conversation to go on

    room_bytes = 0
    taken = set()
    rooms_dir = os.path.join(out, "rooms")
    for _ in range(a.rooms):
        title, data = make_room(rng, text, a.min_messages, a.max_messages, span_start, room_span)
        name = unique_name(slugify(title), taken)
        room_bytes += write(os.path.join(rooms_dir, name + ".md"), data)

    entry_bytes = 0
    taken = set()
    years = set()
    for _ in range(a.entries):
        year, iso, title, data = make_entry(rng, text, span_start, days)
        folder = os.path.join(out, "diary", "%04d" % year)
        if year not in years:
            os.makedirs(folder, exist_ok=True)
            years.add(year)
        name = unique_name("%s-%s" % (iso, slugify(title)), taken)
        entry_bytes += write(os.path.join(folder, name + ".md"), data)

    total += room_bytes + entry_bytes
    elapsed = time.monotonic() - started
    mb = 1000 * 1000
    print("wrote %s in %.1f s (seed %d)" % (out, elapsed, a.seed))
    print("  rooms:   %6d files  %8.1f MB" % (a.rooms, room_bytes / mb))
    print("  diary:   %6d files  %8.1f MB  (%d year folders)" % (a.entries, entry_bytes / mb, len(years)))
    print("  total:   %6d files  %8.1f MB  (%d bytes)" % (a.rooms + a.entries + 3, total / mb, total))
    if a.commit:
        head = git_commit(out)
        print("  commit:  %s (%.1f s in all)" % (head, time.monotonic() - started))


if __name__ == "__main__":
    main()
