/**
 * Ranking expectations over the fixture corpus (corpus.ts): for each query, the observation a person
 * searching would want must be among the top 3 hits. `beats` (recency ties) additionally requires the
 * expected observation to rank above an equally matching, older one.
 */

export type QueryCategory =
  | "english"
  | "identifier"
  | "file"
  | "error-code"
  | "korean"
  | "mixed"
  | "fts-syntax"
  | "recency"

export interface RankingQuery {
  readonly query: string
  /** Fixture key of the observation that must be in the top 3. */
  readonly expect: string
  /** Fixture key of an equally matching observation that `expect` must rank above. */
  readonly beats?: string
  readonly category: QueryCategory
  readonly note: string
}

export const TOP = 3

export const queries: ReadonlyArray<RankingQuery> = [
  // Multi-word English: any term matches, rows matching more terms rank higher.
  {
    category: "english",
    query: "login redirect loop",
    expect: "auth-redirect-loop",
    note: "many rows say login; only one has all three"
  },
  {
    category: "english",
    query: "stripe webhook signature",
    expect: "pay-webhook-signature",
    note: "the Korean webhook note is a near-duplicate"
  },
  {
    category: "english",
    query: "docker compose postgres healthcheck",
    expect: "db-compose-healthcheck",
    note: "docker compose appears in many rows"
  },
  {
    category: "english",
    query: "column already exists migration",
    expect: "db-migration-column-exists",
    note: "the unique violation also says already exists"
  },
  {
    category: "english",
    query: "react key prop warning list",
    expect: "cart-key-warning",
    note: "React warning text; 'react' prefixes 'reactjs'"
  },
  { category: "english", query: "flaky test retry ci", expect: "ci-flaky-retry", note: "'test' is in dozens of rows" },
  {
    category: "english",
    query: "n+1 query orders endpoint slow",
    expect: "perf-n-plus-one",
    note: "the Korean N+1 note and orders rows compete"
  },
  { category: "english", query: "peer dependency vite", expect: "deps-eresolve-vite", note: "npm ERESOLVE output" },
  {
    category: "english",
    query: "cannot borrow as mutable",
    expect: "rust-borrow-e0502",
    note: "E0382 also says borrow"
  },
  {
    category: "english",
    query: "rate limit 429 retry",
    expect: "pay-rate-limit",
    note: "rate/limit only as parts of StripeRateLimitError"
  },
  {
    category: "english",
    query: "redis session store",
    expect: "authsess-redis-store",
    note: "redis and session are in many rows of that session"
  },
  {
    category: "english",
    query: "heap out of memory",
    expect: "perf-heap-oom",
    note: "'memory leak' in the MaxListeners warning is a distractor"
  },
  {
    category: "english",
    query: "partial refund assertion",
    expect: "pay-pytest-refund-fail",
    note: "refund fix and Korean refund note compete"
  },
  {
    category: "english",
    query: "missing translation key checkout",
    expect: "i18n-missing-key",
    note: "checkout is everywhere; missing/key are parts of missingKey"
  },
  {
    category: "english",
    query: "email queue retry backoff",
    expect: "notif-retry-edit",
    note: "emailQueue split into email + queue"
  },

  // Identifier parts: words of the query found inside camelCase, PascalCase and snake_case identifiers.
  {
    category: "identifier",
    query: "token expired",
    expect: "auth-jwt-expired",
    note: "TokenExpiredError; many rows mention token"
  },
  { category: "identifier", query: "case", expect: "search-snake-case-rename", note: "snake_case / camelCase" },
  {
    category: "identifier",
    query: "max listeners",
    expect: "perf-max-listeners",
    note: "MaxListenersExceededWarning; 'max' alone is in max-warnings rows"
  },
  {
    category: "identifier",
    query: "create payment intent",
    expect: "pay-intent-create",
    note: "stripe.paymentIntents.create; payment_intent.succeeded rows compete"
  },
  {
    category: "identifier",
    query: "cart store",
    expect: "cart-zustand-store",
    note: "useCartStore; RedisStore/sessionStore are distractors"
  },
  {
    category: "identifier",
    query: "unique violation",
    expect: "pay-psycopg-unique-violation",
    note: "psycopg2.errors.UniqueViolation vs the pg 23505 row"
  },
  {
    category: "identifier",
    query: "gateway timeout",
    expect: "pay-timeout-error",
    note: "PaymentGatewayTimeout; PAYMENT_GATEWAY_TIMEOUT_MS competes"
  },
  {
    category: "identifier",
    query: "send mail undefined",
    expect: "notif-mailer-undefined",
    note: "sendMail; TS 'undefined' errors compete"
  },
  { category: "identifier", query: "dom nesting", expect: "cart-dom-nesting", note: "validateDOMNesting" },

  // File names.
  {
    category: "file",
    query: "CartDrawer.tsx",
    expect: "cart-drawer-edit",
    note: "the file is also named in a stack trace, a grep and a lint error"
  },
  {
    category: "file",
    query: "Cargo.toml",
    expect: "rust-cargo-toml-edit",
    note: "cargo build rows name Cargo.toml in their command"
  },
  { category: "file", query: "test_refund.py", expect: "pay-pytest-refund-fail", note: "'test' and 'py' are common" },
  {
    category: "file",
    query: "vite.config.ts",
    expect: "deps-vite-config-edit",
    note: "vite is repeated in npm output rows"
  },
  {
    category: "file",
    query: "formatDate.test.ts",
    expect: "i18n-timezone-fail",
    note: "formatPrice.test.ts rows are near-duplicates"
  },

  // Error codes.
  {
    category: "error-code",
    query: "ECONNREFUSED 5432",
    expect: "db-econnrefused",
    note: "redis (6379) and elasticsearch (9200) also refused"
  },
  {
    category: "error-code",
    query: "ECONNREFUSED 6379",
    expect: "authsess-redis-econnrefused",
    note: "postgres (5432) also refused"
  },
  {
    category: "error-code",
    query: "TS2322",
    expect: "ts-2322-error",
    note: "TS2345/TS7006/TS2532 and every .ts file compete"
  },
  { category: "error-code", query: "TS7006", expect: "ts-7006-error", note: "other TS codes" },
  {
    category: "error-code",
    query: "E0502",
    expect: "rust-borrow-e0502",
    note: "hex-looking code, E0382/E0432 compete"
  },
  {
    category: "error-code",
    query: "ERR_MODULE_NOT_FOUND",
    expect: "deps-err-module-not-found",
    note: "ERR_UNKNOWN_FILE_EXTENSION competes"
  },
  {
    category: "error-code",
    query: "exit code 137",
    expect: "release-docker-oom",
    note: "'code' is in many rows (code: 'ECONNREFUSED', code 1)"
  },
  { category: "error-code", query: "502 bad gateway", expect: "release-nginx-502", note: "payment gateway rows" },
  { category: "error-code", query: "ERESOLVE", expect: "deps-eresolve-vite", note: "npm error code" },
  { category: "error-code", query: "23505", expect: "db-unique-violation", note: "SQLSTATE unique_violation" },
  {
    category: "error-code",
    query: "ETIMEDOUT",
    expect: "notif-etimedout",
    note: "the failed-jobs listing repeats it once"
  },
  { category: "error-code", query: "EUSAGE", expect: "ci-npm-ci-fail", note: "npm ci lock file out of sync" },

  // Korean: particles must not stop a match (인증 finds 인증을 and 인증에서).
  { category: "korean", query: "인증", expect: "auth-note-middleware-ko", note: "stored as 인증을" },
  { category: "korean", query: "인증", expect: "authsess-expiry-ko", note: "stored as 인증에서" },
  {
    category: "korean",
    query: "인증에서 세션 만료",
    expect: "authsess-expiry-ko",
    note: "query particle 에서 stripped"
  },
  {
    category: "korean",
    query: "결제 타임아웃",
    expect: "pay-timeout-ko",
    note: "결제 and 타임아웃 are each in several rows"
  },
  {
    category: "korean",
    query: "결제가 실패",
    expect: "pay-refund-fail-ko",
    note: "결제가 -> 결제; 실패 prefixes 실패했다는"
  },
  { category: "korean", query: "장바구니 총액", expect: "cart-note-ko", note: "장바구니를 style particles" },
  { category: "korean", query: "마이그레이션을 롤백", expect: "db-rollback-ko", note: "롤백 prefixes 롤백하고" },
  { category: "korean", query: "배포 실패 원인", expect: "release-deploy-fail-ko", note: "배포 완료 note competes" },
  { category: "korean", query: "캐시 무효화", expect: "perf-cache-invalidation-ko", note: "CI 캐시 note competes" },
  { category: "korean", query: "테스트가 느려서", expect: "ci-slow-tests-ko", note: "테스트가 -> 테스트" },
  {
    category: "korean",
    query: "메일 발송 재시도",
    expect: "notif-queue-ko",
    note: "재시도 also in the payment timeout note"
  },
  { category: "korean", query: "주문일이 하루 밀려", expect: "i18n-timezone-ko", note: "주문일이 -> 주문일" },

  // Korean and English together.
  {
    category: "mixed",
    query: "로그인 TokenExpiredError",
    expect: "auth-login-token-expired-ko",
    note: "the English stack trace has TokenExpiredError twice"
  },
  {
    category: "mixed",
    query: "webhook 서명 검증",
    expect: "pay-webhook-ko",
    note: "the English webhook error names webhooks in its command"
  },
  {
    category: "mixed",
    query: "useEffect 무한 루프",
    expect: "cart-useeffect-loop-ko",
    note: "the English Maximum update depth warning says useEffect twice"
  },
  { category: "mixed", query: "N+1 쿼리", expect: "perf-n-plus-one-ko", note: "'1' matches many rows" },
  {
    category: "mixed",
    query: "clippy 경고",
    expect: "rust-clippy-ko",
    note: "the clippy run itself says clippy more often"
  },
  { category: "mixed", query: "AVIF 썸네일 panic", expect: "rust-avif-ko", note: "the panic log says Avif twice" },
  { category: "mixed", query: "vite 6 업그레이드", expect: "deps-ko", note: "vite is in many deps rows" },

  // FTS5 syntax in user input must be taken literally, never break the query.
  { category: "fts-syntax", query: "\"unterminated", expect: "cart-unterminated", note: "unbalanced double quote" },
  { category: "fts-syntax", query: "formatPrice*", expect: "cart-format-price", note: "prefix operator" },
  { category: "fts-syntax", query: "NEAR(redis timeout)", expect: "authsess-redis-timeout", note: "NEAR group" },
  {
    category: "fts-syntax",
    query: "--runInBand",
    expect: "ci-runinband",
    note: "leading minus (NOT in some syntaxes)"
  },
  { category: "fts-syntax", query: "-flaky", expect: "ci-flaky-retry", note: "leading minus" },
  {
    category: "fts-syntax",
    query: "files:orders.controller.ts",
    expect: "perf-orders-controller-read",
    note: "column filter syntax"
  },
  {
    category: "fts-syntax",
    query: "migrate:latest",
    expect: "db-knex-migrate-latest",
    note: "npm script name with a colon"
  },
  { category: "fts-syntax", query: "(calculateTax", expect: "pay-calculate-tax-fix", note: "unbalanced parenthesis" },
  { category: "fts-syntax", query: "\"docker compose\" up -d", expect: "db-compose-up", note: "phrase plus flag" },
  { category: "fts-syntax", query: "^cargo test", expect: "rust-cargo-test-pass", note: "initial-token operator" },
  { category: "fts-syntax", query: "jwt.verify OR", expect: "auth-grep-verify", note: "dangling OR" },

  // Identical observations days apart: only recency can order them.
  {
    category: "recency",
    query: "npm run lint",
    expect: "deps-lint-clean-new",
    beats: "ci-lint-clean-old",
    note: "same lint output 15 and 3 days ago"
  },
  {
    category: "recency",
    query: "git status",
    expect: "release-git-status-new",
    beats: "db-git-status-old",
    note: "same clean status 35 and 1 days ago"
  }
]

/** Queries with no searchable word: they must return no hits (and not throw). */
export const punctuationQueries: ReadonlyArray<string> = ["?!", "\"()*:^-", "--- ... ///", "→ … · ¿", "   "]
