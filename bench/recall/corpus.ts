/**
 * The recall corpus: scenarios of developer work across sessions, each ending in a later prompt and the
 * past items a good memory brings to it. Written as a developer would live them, not for any engine:
 * the items are what a colleague who saw the earlier sessions would mention.
 */
import { edit, fail, grep, note, read, run, type Scenario, session, write } from "./scenario.ts"

const WEB = [
  "src/app.ts",
  "src/routes/index.ts",
  "src/db/client.ts",
  "src/config.ts",
  "src/lib/logger.ts",
  "src/lib/http.ts",
  "package.json",
  "tsconfig.json"
]
const PY = [
  "app/main.py",
  "app/models.py",
  "app/db.py",
  "app/settings.py",
  "tests/conftest.py",
  "pyproject.toml",
  "app/utils.py"
]
const GO = [
  "cmd/server/main.go",
  "internal/store/store.go",
  "internal/api/handler.go",
  "internal/config/config.go",
  "go.mod",
  "Makefile"
]
const RUST = ["src/main.rs", "src/lib.rs", "src/parser.rs", "src/cli.rs", "Cargo.toml", "tests/cli.rs"]
const FRONT = [
  "src/App.tsx",
  "src/components/Button.tsx",
  "src/hooks/useFetch.ts",
  "src/pages/Home.tsx",
  "vite.config.ts",
  "package.json"
]

export const corpus: ReadonlyArray<Scenario> = [
  {
    id: "jwt-expiry",
    language: "en",
    files: WEB,
    past: [
      session("The login test fails with TokenExpiredError right after sign-in; fix it", [
        read("src/auth/session.ts"),
        fail(
          "npm test -- auth",
          "FAIL src/auth/session.test.ts"
            + "\nTokenExpiredError: jwt expired\n    at refreshSession (src/auth/session.ts:41:11)"
        ),
        edit("src/auth/session.ts", "expiresIn: ttl / 1000", "expiresIn: ttl"),
        run("npm test -- auth", "PASS src/auth/session.test.ts (6 tests)")
      ], "Fixed: refreshSession divided the TTL by 1000 twice, so tokens expired at once. The auth tests pass.")
    ],
    next: "Users get logged out immediately after signing in again. Can you look at the session refresh?",
    expected: [
      { what: "the earlier failure", match: "TokenExpiredError" },
      { what: "the file that was fixed", match: "src/auth/session.ts" },
      { what: "the cause in Claude's words", match: "divided the TTL by 1000" }
    ]
  },
  {
    id: "pnpm-convention",
    language: "en",
    files: WEB,
    past: [
      session("Add zod to validate the config", [
        note("This repo uses pnpm, never npm: npm install rewrites the lockfile"),
        run("pnpm add zod", "+ zod 3.25.1"),
        edit("src/config.ts", "export const config = raw", "export const config = ConfigSchema.parse(raw)"),
        run("pnpm test", "Test Files  9 passed (9)")
      ], "Added zod and a ConfigSchema; config is validated at start-up.")
    ],
    next: "Install date-fns and use it in the report formatter",
    expected: [
      { what: "the package-manager convention", match: "never npm" }
    ]
  },
  {
    id: "flaky-webhook",
    language: "en",
    files: WEB,
    past: [
      session(
        "The stripe webhook test is flaky on CI",
        [
          read("src/payments/webhook.ts"),
          fail(
            "npm test -- webhook",
            "FAIL src/payments/webhook.test.ts\nError: Timeout of 5000ms exceeded waiting for signature verification"
          ),
          grep("constructEvent", "src/payments/webhook.ts"),
          edit(
            "src/payments/webhook.ts",
            "await stripe.webhooks.constructEventAsync(body, sig, secret)",
            "stripe.webhooks.constructEvent(rawBody, sig, secret)"
          ),
          run("npm test -- webhook", "PASS src/payments/webhook.test.ts (3 tests)")
        ],
        "The webhook test timed out because the body was parsed as JSON before verification;"
          + " it now verifies the raw body."
      )
    ],
    next: "The payment webhook test timed out on CI again, same as before?",
    expected: [
      { what: "the timeout error", match: "Timeout of 5000ms exceeded" },
      { what: "the fix: verify the raw body", match: "rawBody" },
      { what: "the file", match: "src/payments/webhook.ts" }
    ]
  },
  {
    id: "migration-lock",
    language: "en",
    files: WEB,
    past: [
      session("Run the new migration for the invoices table", [
        fail("npm run migrate", "MigrationLockError: the knex_migrations_lock table is locked"),
        run("npm run migrate:unlock", "Lock released"),
        run("npm run migrate", "Batch 12 run: 1 migrations")
      ], "A previous crashed run left the migration lock set; migrate:unlock released it and the migration ran."),
      session("Add an index on invoices.customer_id", [
        write(
          "migrations/20261102_invoice_customer_index.ts",
          "export const up = (knex) => knex.schema.alterTable('invoices', (t) => t.index('customer_id'))"
        ),
        run("npm run migrate", "Batch 13 run: 1 migrations")
      ], "Added the index migration.")
    ],
    next: "npm run migrate hangs and then says the table is locked",
    expected: [
      { what: "the lock error", match: "MigrationLockError" },
      { what: "the unlock command that fixed it", match: "migrate:unlock" }
    ]
  },
  {
    id: "cors-preflight",
    language: "en",
    files: WEB,
    past: [
      session(
        "The dashboard cannot call the API from localhost:5173",
        [
          read("src/lib/http.ts"),
          run("curl -i -X OPTIONS http://localhost:3000/api/orders", "HTTP/1.1 404 Not Found"),
          edit("src/app.ts", "app.use(router)", "app.use(cors({ origin: config.allowedOrigins }))\napp.use(router)"),
          run(
            "curl -i -X OPTIONS http://localhost:3000/api/orders",
            "HTTP/1.1 204 No Content\nAccess-Control-Allow-Origin: http://localhost:5173"
          )
        ],
        "Preflight OPTIONS requests returned 404; the cors middleware now runs before the router,"
          + " with origins from config.allowedOrigins."
      )
    ],
    next: "The staging frontend gets CORS errors calling the orders API",
    expected: [
      { what: "the allowed-origins setting", match: "allowedOrigins" },
      { what: "the preflight finding", match: "Preflight" }
    ]
  },
  {
    id: "docker-node-version",
    language: "en",
    files: WEB,
    past: [
      session("The Docker build fails", [
        fail(
          "docker build -t api .",
          "npm ERR! engine Unsupported engine: wanted: {\"node\":\">=22\"} (current: {\"node\":\"20.11.0\"})"
        ),
        edit("Dockerfile", "FROM node:20-alpine", "FROM node:22-alpine"),
        run("docker build -t api .", "Successfully tagged api:latest")
      ], "The image was on Node 20 while package.json requires 22; the Dockerfile now uses node:22-alpine.")
    ],
    next: "CI's docker job is red, the image won't build",
    expected: [
      { what: "the engine error", match: "Unsupported engine" },
      { what: "the fix", match: "node:22-alpine" }
    ]
  },
  {
    id: "decimal-money",
    language: "en",
    files: WEB,
    past: [
      session("Totals are off by a cent on some invoices", [
        read("src/billing/total.ts"),
        fail(
          "npm test -- total",
          "FAIL src/billing/total.test.ts\nAssertionError: expected 10.000000000000002 to be 10.01"
        ),
        edit(
          "src/billing/total.ts",
          "items.reduce((s, i) => s + i.price * i.qty, 0)",
          "items.reduce((s, i) => s + toCents(i.price) * i.qty, 0) / 100"
        ),
        run("npm test -- total", "PASS src/billing/total.test.ts")
      ], "Floating-point sums: totals are now computed in integer cents with toCents."),
      session(
        "Note the money rule",
        [note("Money is always integer cents in the billing code; never add floats")],
        "Noted."
      )
    ],
    next: "Add a discount line to invoices",
    expected: [
      { what: "the money convention", match: "integer cents" },
      { what: "the helper to use", match: "toCents" }
    ]
  },
  {
    id: "env-test-db",
    language: "en",
    files: WEB,
    past: [
      session("Integration tests wipe my dev database!", [
        read("src/db/client.ts"),
        edit(
          "src/db/client.ts",
          "connectionString: process.env.DATABASE_URL",
          "connectionString: process.env.NODE_ENV === 'test' ? process.env.TEST_DATABASE_URL : process.env.DATABASE_URL"
        ),
        note("Integration tests need TEST_DATABASE_URL set; they truncate every table"),
        run("npm run test:int", "Test Files  4 passed (4)")
      ], "Tests now use TEST_DATABASE_URL; without it they refuse to run.")
    ],
    next: "How do I run the integration tests locally?",
    expected: [
      { what: "the variable to set", match: "TEST_DATABASE_URL" },
      { what: "the command", match: "test:int" }
    ]
  },
  {
    id: "pytest-fixture-scope",
    language: "en",
    files: PY,
    past: [
      session(
        "pytest is extremely slow since yesterday",
        [
          read("tests/conftest.py"),
          run(
            "pytest --durations=5",
            "12.40s setup tests/test_orders.py::test_create\n11.90s setup tests/test_orders.py::test_cancel"
          ),
          edit(
            "tests/conftest.py",
            "@pytest.fixture\ndef engine():",
            "@pytest.fixture(scope=\"session\")\ndef engine():"
          ),
          run("pytest -q", "148 passed in 9.31s")
        ],
        "The engine fixture was function-scoped, so every test created the schema;"
          + " it is session-scoped now (148 tests in 9 s)."
      )
    ],
    next: "The test suite got slow again after I added the payments fixtures",
    expected: [
      { what: "the fixture scope fix", match: "scope=\"session\"" },
      { what: "the diagnosis command", match: "--durations" }
    ]
  },
  {
    id: "alembic-heads",
    language: "en",
    files: PY,
    past: [
      session("alembic upgrade fails after merging main", [
        fail(
          "alembic upgrade head",
          "alembic.util.exc.CommandError: Multiple head revisions are present for given argument 'head'"
        ),
        run("alembic heads", "3f2a1c (head)\n9b7e44 (head)"),
        run("alembic merge -m 'merge heads' 3f2a1c 9b7e44", "Generating migrations/versions/c0ffee_merge_heads.py"),
        run("alembic upgrade head", "Running upgrade 3f2a1c, 9b7e44 -> c0ffee")
      ], "Two branches each added a migration; a merge revision joins the heads.")
    ],
    next: "alembic says there are multiple heads again",
    expected: [
      { what: "the error", match: "Multiple head revisions" },
      { what: "the fix", match: "alembic merge" }
    ]
  },
  {
    id: "mypy-optional",
    language: "en",
    files: PY,
    past: [
      session("Make mypy strict pass on app/models.py", [
        fail(
          "mypy --strict app",
          "app/models.py:88: error: Item \"None\" of \"Optional[User]\" has no attribute \"email\"  [union-attr]"
        ),
        edit(
          "app/models.py",
          "return order.user.email",
          "if order.user is None:\n        raise OrphanOrderError(order.id)\n    return order.user.email"
        ),
        run("mypy --strict app", "Success: no issues found in 23 source files")
      ], "Orders without a user now raise OrphanOrderError instead of crashing on .email.")
    ],
    next: "Sentry shows AttributeError on order emails for guest checkouts",
    expected: [
      { what: "the earlier error", match: "has no attribute \"email\"" },
      { what: "the exception added", match: "OrphanOrderError" }
    ]
  },
  {
    id: "celery-retry",
    language: "en",
    files: PY,
    past: [
      session(
        "Emails are sent twice when the SMTP server is slow",
        [
          read("app/tasks/email.py"),
          grep("autoretry_for", "app/tasks/email.py"),
          edit(
            "app/tasks/email.py",
            "@app.task(autoretry_for=(Exception,))",
            "@app.task(autoretry_for=(SMTPServerDisconnected,), acks_late=True, idempotency_key='message_id')"
          ),
          run("pytest tests/test_email.py", "5 passed")
        ],
        "Retries were on any Exception, including the timeout after the send succeeded;"
          + " now only on SMTPServerDisconnected and keyed by message_id."
      )
    ],
    next: "Customers got the password reset email twice",
    expected: [
      { what: "the retry fix", match: "SMTPServerDisconnected" },
      { what: "the file", match: "app/tasks/email.py" }
    ]
  },
  {
    id: "go-race",
    language: "en",
    files: GO,
    past: [
      session("go test -race fails in the store package", [
        fail(
          "go test -race ./internal/store/...",
          "WARNING: DATA RACE\nWrite at 0x00c0001 by goroutine 12:\n"
            + "  store.(*Cache).Put()\n      internal/store/cache.go:34"
        ),
        edit(
          "internal/store/cache.go",
          "type Cache struct {\n\titems map[string]Item",
          "type Cache struct {\n\tmu    sync.RWMutex\n\titems map[string]Item"
        ),
        run("go test -race ./internal/store/...", "ok  \texample.com/api/internal/store\t1.204s")
      ], "Cache.Put wrote the map without a lock; a sync.RWMutex guards it now.")
    ],
    next: "Production panicked with concurrent map writes in the cache",
    expected: [
      { what: "the race", match: "DATA RACE" },
      { what: "the file", match: "internal/store/cache.go" },
      { what: "the fix", match: "RWMutex" }
    ]
  },
  {
    id: "go-module-private",
    language: "en",
    files: GO,
    past: [
      session("go mod tidy fails on the private billing module", [
        fail(
          "go mod tidy",
          "go: example.com/billing@v1.4.0: reading "
            + "https://proxy.golang.org/example.com/billing/@v/v1.4.0.mod: 404 Not Found"
        ),
        note("Set GOPRIVATE=example.com/* before any go command touching the billing module"),
        run("GOPRIVATE=example.com/* go mod tidy", "")
      ], "The private module was fetched through the public proxy; GOPRIVATE fixes it.")
    ],
    next: "Upgrade the billing module to v1.5.0",
    expected: [
      { what: "the GOPRIVATE rule", match: "GOPRIVATE" }
    ]
  },
  {
    id: "rust-lifetime",
    language: "en",
    files: RUST,
    past: [
      session("cargo build fails after the tokenizer refactor", [
        fail("cargo build", "error[E0597]: `line` does not live long enough\n  --> src/parser.rs:57:23"),
        read("src/parser.rs"),
        edit("src/parser.rs", "fn tokens(line: &str) -> Vec<&str>", "fn tokens(line: &str) -> Vec<String>"),
        run("cargo build", "Finished dev [unoptimized + debuginfo] target(s) in 4.12s")
      ], "tokens() returned slices of a temporary line; it returns owned Strings now.")
    ],
    next: "Borrow checker complains in parser.rs again after my change to tokens",
    expected: [
      { what: "the error code", match: "E0597" },
      { what: "the fix", match: "Vec<String>" }
    ]
  },
  {
    id: "rust-clippy-ci",
    language: "en",
    files: RUST,
    past: [
      session("Make CI green", [
        fail(
          "cargo clippy -- -D warnings",
          "error: this `if` has identical blocks\n --> src/cli.rs:88:9\n = help: for further information visit "
            + "https://rust-lang.github.io/rust-clippy/master/index.html#if_same_then_else"
        ),
        edit("src/cli.rs", "if verbose { print(x) } else { print(x) }", "print(x)"),
        run("cargo clippy -- -D warnings", "Finished")
      ], "CI runs clippy with -D warnings; fixed the duplicated branches in src/cli.rs.")
    ],
    next: "What does CI check besides the tests?",
    expected: [
      { what: "the clippy check", match: "cargo clippy -- -D warnings" }
    ]
  },
  {
    id: "react-effect-loop",
    language: "en",
    files: FRONT,
    past: [
      session("The Home page refetches forever", [
        read("src/hooks/useFetch.ts"),
        run("npm run dev", "VITE v6.2.0 ready in 312 ms"),
        edit(
          "src/hooks/useFetch.ts",
          "useEffect(() => { load() }, [options])",
          "useEffect(() => { load() }, [url, options.method])"
        ),
        run("npm test -- useFetch", "PASS src/hooks/useFetch.test.ts")
      ], "useFetch depended on the options object, a new one every render; it depends on url and method now.")
    ],
    next: "The profile page keeps sending requests in a loop",
    expected: [
      { what: "the hook at fault", match: "useFetch" },
      { what: "the cause", match: "a new one every render" }
    ]
  },
  {
    id: "vite-env-prefix",
    language: "en",
    files: FRONT,
    past: [
      session("import.meta.env.API_URL is undefined in the build", [
        grep("import.meta.env", "src/lib/api.ts"),
        edit("src/lib/api.ts", "import.meta.env.API_URL", "import.meta.env.VITE_API_URL"),
        edit(".env.production", "API_URL=https://api.example.com", "VITE_API_URL=https://api.example.com"),
        run("npm run build", "dist/index.html  0.46 kB")
      ], "Vite only exposes variables prefixed VITE_; renamed to VITE_API_URL.")
    ],
    next: "Add a SENTRY_DSN env var for the frontend",
    expected: [
      { what: "the prefix rule", match: "VITE_" }
    ]
  },
  {
    id: "playwright-auth",
    language: "en",
    files: FRONT,
    past: [
      session("Set up Playwright e2e tests for checkout", [
        write("e2e/checkout.spec.ts", "test('checkout', async ({ page }) => { await page.goto('/checkout') })"),
        fail("npx playwright test", "Error: page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:4173/checkout"),
        edit(
          "playwright.config.ts",
          "use: { baseURL: 'http://localhost:4173' }",
          "webServer: { command: 'npm run preview', port: 4173 },\n  use: { baseURL: 'http://localhost:4173' }"
        ),
        run("npx playwright test", "1 passed (5.2s)")
      ], "Playwright needed the preview server: webServer in playwright.config.ts starts it.")
    ],
    next: "Write an e2e test for the login form",
    expected: [
      { what: "the webServer setting", match: "webServer" },
      { what: "the earlier connection error", match: "ERR_CONNECTION_REFUSED" }
    ]
  },
  {
    id: "rate-limit-header",
    language: "en",
    files: WEB,
    past: [
      session("The GitHub sync job dies with 403", [
        fail(
          "npm run sync:github",
          "HttpError: API rate limit exceeded for installation ID 4412 (x-ratelimit-remaining: 0)"
        ),
        edit(
          "src/sync/github.ts",
          "await octokit.paginate(...)",
          "await withRateLimit(octokit, () => octokit.paginate(...))"
        ),
        write(
          "src/sync/rate-limit.ts",
          "export const withRateLimit = async (octokit, fn) => { /* waits for x-ratelimit-reset */ }"
        ),
        run("npm run sync:github", "synced 1,204 issues")
      ], "Added withRateLimit, which waits until x-ratelimit-reset when the quota is spent.")
    ],
    next: "Also sync pull requests from GitHub, not just issues",
    expected: [
      { what: "the helper to reuse", match: "withRateLimit" },
      { what: "the earlier failure", match: "API rate limit exceeded" }
    ]
  },
  {
    id: "decision-queue",
    language: "en",
    files: WEB,
    past: [
      session("Should we use Redis streams or SQS for the job queue?", [
        read("src/jobs/queue.ts"),
        note("Decision: the job queue stays on Postgres (SKIP LOCKED), no Redis or SQS until we pass 50 jobs/s")
      ], "Recommended staying on Postgres with SKIP LOCKED for now; noted the threshold.")
    ],
    next: "Add a queue for the thumbnail jobs",
    expected: [
      { what: "the queue decision", match: "SKIP LOCKED" }
    ]
  },
  {
    id: "timezone-report",
    language: "en",
    files: WEB,
    past: [
      session("The daily report shows yesterday's orders under today", [
        read("src/reports/daily.ts"),
        fail(
          "npm test -- daily",
          "AssertionError: expected '2026-11-02' to equal '2026-11-01' (order at 23:30 Europe/Berlin)"
        ),
        edit(
          "src/reports/daily.ts",
          "new Date(order.createdAt).toISOString().slice(0, 10)",
          "formatInTimeZone(order.createdAt, shop.timeZone, 'yyyy-MM-dd')"
        ),
        run("npm test -- daily", "PASS src/reports/daily.test.ts")
      ], "Days were cut in UTC; they are cut in the shop's time zone now (formatInTimeZone).")
    ],
    next: "The weekly report should start on Monday in the shop's local time",
    expected: [
      { what: "the time-zone helper", match: "formatInTimeZone" },
      { what: "the file", match: "src/reports/daily.ts" }
    ]
  },
  {
    id: "secret-in-logs",
    language: "en",
    files: WEB,
    past: [
      session("Security review: we log request bodies", [
        grep("logger.info(req.body", "src/lib/logger.ts", "src/routes/index.ts"),
        edit(
          "src/lib/logger.ts",
          "export const logRequest = (req) => logger.info(req.body)",
          "export const logRequest = (req) => logger.info(redact(req.body, REDACTED_KEYS))"
        ),
        note("Never log request bodies raw: use logRequest, which redacts REDACTED_KEYS")
      ], "Request bodies are now logged through redact() with REDACTED_KEYS (password, token, card).")
    ],
    next: "Add logging to the new signup endpoint",
    expected: [
      { what: "the logging rule", match: "REDACTED_KEYS" },
      { what: "the helper", match: "logRequest" }
    ]
  },
  {
    id: "monorepo-build-order",
    language: "en",
    files: [
      "packages/core/src/index.ts",
      "packages/web/src/main.ts",
      "packages/api/src/server.ts",
      "turbo.json",
      "package.json"
    ],
    past: [
      session("packages/web can't find @acme/core types", [
        fail(
          "npm run build -w packages/web",
          "error TS2307: Cannot find module '@acme/core' or its corresponding type declarations."
        ),
        edit(
          "turbo.json",
          "\"build\": { \"outputs\": [\"dist/**\"] }",
          "\"build\": { \"dependsOn\": [\"^build\"], \"outputs\": [\"dist/**\"] }"
        ),
        run("npx turbo run build", "Tasks: 3 successful, 3 total")
      ], "web was built before core; turbo's build now dependsOn ^build.")
    ],
    next: "Add a new packages/admin app that uses core",
    expected: [
      { what: "the build-order fix", match: "^build" },
      { what: "the earlier error", match: "TS2307" }
    ]
  },
  {
    id: "loop-parser",
    language: "en",
    files: RUST,
    past: [
      session("/ralph-mem:ralph start make the csv parser handle quoted newlines --max-iterations 6", [
        fail(
          "cargo test csv",
          "test csv::quoted_newline ... FAILED\nthread 'csv::quoted_newline' panicked: expected 2 records, got 3"
        ),
        edit("src/parser.rs", "if c == '\\n' { end_record() }", "if c == '\\n' && !in_quotes { end_record() }"),
        run("cargo test csv", "test result: ok. 14 passed")
      ], "Newlines inside quotes no longer end a record; all csv tests pass.")
    ],
    next: "CSV import splits rows with line breaks in the notes column",
    expected: [
      { what: "the failing test", match: "quoted_newline" },
      { what: "the fix", match: "in_quotes" }
    ]
  },
  // Korean: developers who write to Claude in Korean, with code and errors in English.
  {
    id: "ko-login-timeout",
    language: "ko",
    files: WEB,
    past: [
      session("로그인 세션이 5분 만에 끊겨요. 원인 찾아서 고쳐 주세요", [
        read("src/auth/cookie.ts"),
        fail("npm test -- cookie", "FAIL src/auth/cookie.test.ts\nAssertionError: expected maxAge 300 to be 86400"),
        edit("src/auth/cookie.ts", "maxAge: SESSION_MINUTES * 60", "maxAge: SESSION_HOURS * 60 * 60"),
        run("npm test -- cookie", "PASS src/auth/cookie.test.ts")
      ], "쿠키 maxAge가 분 단위 상수로 계산돼 5분이었습니다. SESSION_HOURS 기준으로 고쳤고 테스트 통과합니다.")
    ],
    next: "로그인이 또 금방 풀린다는 제보가 있어요. 세션 쿠키 확인해 주세요",
    expected: [
      { what: "the cookie fix", match: "SESSION_HOURS" },
      { what: "the file", match: "src/auth/cookie.ts" }
    ]
  },
  {
    id: "ko-yarn-rule",
    language: "ko",
    files: FRONT,
    past: [
      session("차트 라이브러리 추가해 줘", [
        note("이 프로젝트는 yarn berry(PnP)를 씁니다. npm install 금지"),
        run("yarn add recharts", "➤ YN0000: Done in 4s"),
        edit("src/pages/Home.tsx", "<Summary />", "<Summary />\n<SalesChart data={sales} />")
      ], "recharts로 매출 차트를 추가했습니다.")
    ],
    next: "날짜 처리용으로 dayjs 설치해 줘",
    expected: [
      { what: "the yarn rule", match: "yarn berry" }
    ]
  },
  {
    id: "ko-db-pool",
    language: "ko",
    files: WEB,
    past: [
      session("부하 테스트에서 API가 타임아웃 나요", [
        fail("npm run loadtest", "Error: timeout exceeded when trying to connect (pg pool: 10/10 clients busy)"),
        read("src/db/client.ts"),
        edit("src/db/client.ts", "new Pool({ max: 10 })", "new Pool({ max: 40, idleTimeoutMillis: 10000 })"),
        run("npm run loadtest", "p95 182ms, 0 errors")
      ], "pg 풀 크기가 10이라 부하에서 연결을 기다렸습니다. max 40으로 늘려 p95 182ms가 됐습니다.")
    ],
    next: "배포 후에 DB 연결 타임아웃 에러가 다시 보여요",
    expected: [
      { what: "the pool error", match: "timeout exceeded when trying to connect" },
      { what: "the pool setting", match: "max: 40" }
    ]
  },
  {
    id: "ko-korean-search",
    language: "ko",
    files: WEB,
    past: [
      session("상품 검색에서 한글 초성 검색이 안 돼요", [
        read("src/search/products.ts"),
        edit(
          "src/search/products.ts",
          "name.includes(query)",
          "toChoseong(name).includes(toChoseong(query)) || name.includes(query)"
        ),
        write("src/search/choseong.ts", "export const toChoseong = (text) => { /* ㄱ-ㅎ */ }"),
        run("npm test -- products", "PASS src/search/products.test.ts (8 tests)")
      ], "toChoseong 함수로 초성 검색을 지원합니다.")
    ],
    next: "주문 검색에도 초성 검색 넣어 줘",
    expected: [
      { what: "the helper to reuse", match: "toChoseong" },
      { what: "its file", match: "src/search/choseong.ts" }
    ]
  },
  {
    id: "ko-deploy-order",
    language: "ko",
    files: WEB,
    past: [
      session("배포 절차 정리해 줘", [
        read("scripts/deploy.sh"),
        note(
          "배포 순서: 마이그레이션(npm run migrate) 먼저, 그다음 API, 마지막에 워커. 순서 바꾸면 워커가 새 컬럼을 못 찾음"
        )
      ], "배포 순서를 메모로 남겼습니다.")
    ],
    next: "이번 배포에 새 컬럼이 들어가는데 어떤 순서로 배포하면 돼?",
    expected: [
      { what: "the deploy order", match: "마이그레이션(npm run migrate) 먼저" }
    ]
  },
  {
    id: "ko-python-encoding",
    language: "ko",
    files: PY,
    past: [
      session("CSV 내보내기를 엑셀에서 열면 한글이 깨져요", [
        read("app/export.py"),
        edit("app/export.py", "open(path, 'w', encoding='utf-8')", "open(path, 'w', encoding='utf-8-sig')"),
        run("pytest tests/test_export.py", "3 passed")
      ], "엑셀은 BOM이 없으면 UTF-8을 인식하지 못해서 utf-8-sig로 저장하게 했습니다.")
    ],
    next: "정산 리포트 CSV도 엑셀에서 한글이 깨진대요",
    expected: [
      { what: "the encoding fix", match: "utf-8-sig" },
      { what: "the file", match: "app/export.py" }
    ]
  },
  {
    id: "ko-go-timeout",
    language: "ko",
    files: GO,
    past: [
      session("외부 결제 API 호출이 가끔 영원히 멈춰요", [
        read("internal/api/handler.go"),
        grep("http.Get", "internal/payments/client.go"),
        edit(
          "internal/payments/client.go",
          "http.Get(url)",
          "client := &http.Client{Timeout: 10 * time.Second}\n\tclient.Get(url)"
        ),
        run("go test ./internal/payments/...", "ok  \texample.com/api/internal/payments\t0.412s")
      ], "기본 http.Client에는 타임아웃이 없어서 멈췄습니다. 10초 타임아웃을 넣었습니다.")
    ],
    next: "배송 조회 API 클라이언트 새로 만들어 줘",
    expected: [
      { what: "the timeout lesson", match: "Timeout: 10 * time.Second" }
    ]
  },
  {
    id: "ko-tsc-strict",
    language: "ko",
    files: WEB,
    past: [
      session("strict 모드 켜 줘", [
        edit("tsconfig.json", "\"strict\": false", "\"strict\": true"),
        fail(
          "npx tsc --noEmit",
          "src/routes/index.ts(31,17): error TS2532: Object is possibly 'undefined'.\nFound 27 errors in 9 files."
        ),
        edit("src/routes/index.ts", "req.user.id", "req.user?.id ?? anonymous"),
        fail("npx tsc --noEmit", "Found 26 errors in 8 files.")
      ], "strict를 켰고 오류 27개 중 1개를 고쳤습니다. 남은 26개는 다음에 이어서 하겠습니다.")
    ],
    next: "strict 모드 오류 남은 거 이어서 고쳐 줘",
    expected: [
      { what: "where it stopped", match: "26 errors" },
      { what: "the kind of error", match: "TS2532" }
    ]
  }
]
