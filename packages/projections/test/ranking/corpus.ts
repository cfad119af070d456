/**
 * A fixture corpus of realistic coding-session observations, in English and Korean, for the ranking test.
 *
 * Project "/work/shop" is a monorepo (Node/TypeScript API, React web app, Python payments worker, Rust
 * thumbnail service) worked on over 13 sessions in the last 60 days. Project "/work/other" is a
 * different repository whose observations deliberately duplicate the strongest matches of many queries
 * (often newer, so they would win every tie): a search filtered to "/work/shop" must never return them.
 *
 * Every observation has a stable fixture key; queries name the key they expect. Near-duplicates and
 * distractors are deliberate: many rows mention "token", "test", "timeout", "결제", "인증" or a `.ts` file.
 */

export type FixtureKind = "tool_use" | "error" | "success" | "note"
export type FixtureTool = "Bash" | "Edit" | "Read" | "Write" | "Grep"

export interface FixtureObservation {
  /** Stable, unique across the corpus. */
  readonly key: string
  readonly kind: FixtureKind
  readonly toolName?: FixtureTool
  readonly inputSummary?: string
  readonly content: string
  readonly files?: ReadonlyArray<string>
  readonly errorMessage?: string
  /** Days before NOW (0-60). */
  readonly daysAgo: number
}

export interface FixtureSession {
  readonly sessionId: string
  readonly projectPath: string
  readonly observations: ReadonlyArray<FixtureObservation>
}

export const SHOP = "/work/shop"
export const OTHER = "/work/other"

type Draft = Omit<FixtureObservation, "daysAgo"> & { readonly daysAgo?: number }

/** A session whose observations all happen `daysAgo` days before NOW unless they say otherwise. */
const session = (
  sessionId: string,
  projectPath: string,
  daysAgo: number,
  observations: ReadonlyArray<Draft>
): FixtureSession => ({
  sessionId,
  projectPath,
  observations: observations.map((o) => ({ ...o, daysAgo: o.daysAgo ?? daysAgo }))
})

/** Identical in every indexed field: used twice, days apart, so only recency can order them. */
const LINT_CLEAN = `> shop@1.4.0 lint
> eslint . --max-warnings 0 && prettier --check "src/**/*.{ts,tsx}"

Checking formatting...
All matched files use Prettier code style!`

const GIT_STATUS_CLEAN = `On branch main
Your branch is up to date with 'origin/main'.

nothing to commit, working tree clean`

// ---------------------------------------------------------------------------------------------------
// /work/shop
// ---------------------------------------------------------------------------------------------------

const auth = session("sess-shop-auth-01", SHOP, 45, [
  {
    key: "auth-read-routes",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "src/api/routes/auth.ts",
    content: `import { Router } from "express"
import { loginHandler, logoutHandler } from "../controllers/auth.controller.ts"

export const authRoutes = Router()
authRoutes.post("/login", loginHandler)
authRoutes.post("/logout", logoutHandler)`,
    files: ["src/api/routes/auth.ts"]
  },
  {
    key: "auth-user-model-read",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "src/models/user.ts",
    content: `export interface User {
  id: UserId
  email: string
  passwordHash: string
  role: "customer" | "admin"
  createdAt: Date
}`,
    files: ["src/models/user.ts"]
  },
  {
    key: "auth-middleware-write",
    kind: "tool_use",
    toolName: "Write",
    inputSummary: "src/middleware/jwt.middleware.ts",
    content: `import jwt from "jsonwebtoken"
import type { NextFunction, Request, Response } from "express"

export function requireAuth(req: Request, res: Response, next: NextFunction) {
  const header = req.headers.authorization ?? ""
  const [, bearer] = header.split(" ")
  if (!bearer) return res.status(401).json({ code: "UNAUTHENTICATED" })
  req.user = jwt.verify(bearer, publicKey(), { algorithms: ["RS256"] }) as AccessClaims
  next()
}`,
    files: ["src/middleware/jwt.middleware.ts"]
  },
  {
    key: "auth-note-middleware-ko",
    kind: "note",
    content:
      "인증을 위한 미들웨어 추가: requireAuth 가 Authorization 헤더의 Bearer 값을 RS256 공개키로 검증하고 req.user 에 claims 를 넣는다. "
      + "/api/orders, /api/cart 라우트에 적용.",
    files: ["src/middleware/jwt.middleware.ts"]
  },
  {
    key: "auth-jwt-expired",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/middleware",
    content: ` FAIL  src/middleware/jwt.middleware.test.ts > requireAuth > responds 401 when the access token has `
      + `expired
TokenExpiredError: jwt expired
 ❯ Object.module.exports [as verify] node_modules/jsonwebtoken/verify.js:190:21
 ❯ requireAuth src/middleware/jwt.middleware.ts:9:18
 ❯ src/middleware/jwt.middleware.test.ts:42:5

  expiredAt: 2026-09-30T08:12:44.000Z

 Test Files  1 failed (1)
      Tests  1 failed | 6 passed (7)
   Duration  1.21s`,
    files: ["src/middleware/jwt.middleware.ts", "src/middleware/jwt.middleware.test.ts"],
    errorMessage: "TokenExpiredError: jwt expired"
  },
  {
    key: "auth-login-token-expired-ko",
    kind: "note",
    content:
      "로그인할 때 TokenExpiredError 발생. 만료된 access token 을 verify 가 그대로 throw 해서 전역 에러 핸들러가 500 을 돌려준다. 401 로 바꿔야 "
      + "프론트가 refresh 를 시도함."
  },
  {
    key: "auth-fix-expiry-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/middleware/jwt.middleware.ts",
    content: `-  req.user = jwt.verify(bearer, publicKey(), { algorithms: ["RS256"] }) as AccessClaims
-  next()
+  try {
+    req.user = jwt.verify(bearer, publicKey(), { algorithms: ["RS256"] }) as AccessClaims
+  } catch (err) {
+    if (isExpiry(err)) return res.status(401).json({ code: "SESSION_EXPIRED" })
+    return next(err)
+  }
+  next()`,
    files: ["src/middleware/jwt.middleware.ts"]
  },
  {
    key: "auth-test-pass",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npx vitest run src/middleware",
    content: ` ✓ src/middleware/jwt.middleware.test.ts (7 tests) 46ms

 Test Files  1 passed (1)
      Tests  7 passed (7)
   Duration  1.08s`,
    files: ["src/middleware/jwt.middleware.test.ts"]
  },
  {
    key: "auth-redirect-loop",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx playwright test tests/e2e/login.spec.ts",
    content: `  1) [chromium] › login.spec.ts:14:3 › login › redirects back to the cart after sign-in

    Error: page.goto: net::ERR_TOO_MANY_REDIRECTS at http://localhost:5173/login?next=%2Fcart
    Call log:
      - navigating to "http://localhost:5173/login?next=%2Fcart", waiting until "load"

    The login page redirects to /cart, and the cart guard redirects back to /login: an infinite redirect loop.`,
    files: ["tests/e2e/login.spec.ts", "src/web/routes/guards.tsx"],
    errorMessage: "net::ERR_TOO_MANY_REDIRECTS"
  },
  {
    key: "auth-refresh-token-write",
    kind: "tool_use",
    toolName: "Write",
    inputSummary: "src/services/refresh-token.service.ts",
    content: `export async function rotateRefreshToken(userId: UserId, presented: string) {
  const row = await db("refresh_tokens").where({ user_id: userId, token_hash: sha256(presented) }).first()
  if (!row || row.revoked_at) throw new InvalidRefreshToken()
  await db("refresh_tokens").where({ id: row.id }).update({ revoked_at: db.fn.now() })
  return issueRefreshToken(userId)
}`,
    files: ["src/services/refresh-token.service.ts"]
  },
  {
    key: "auth-grep-verify",
    kind: "tool_use",
    toolName: "Grep",
    inputSummary: "jwt.verify",
    content: `src/middleware/jwt.middleware.ts:9:  req.user = jwt.verify(bearer, publicKey(), { algorithms: `
      + `["RS256"] }) as AccessClaims
src/services/refresh-token.service.ts:31:  const claims = jwt.verify(presented, publicKey())
scripts/debug-jwt.ts:7:console.log(jwt.verify(process.argv[2], publicKey()))`,
    files: ["src/middleware/jwt.middleware.ts", "src/services/refresh-token.service.ts", "scripts/debug-jwt.ts"]
  },
  {
    key: "auth-samesite-warning",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx playwright test tests/e2e/login.spec.ts --project=firefox",
    content: `[firefox] console warning: Cookie "rt" has been rejected because it is in a cross-site context and its `
      + `"SameSite" is "Lax" or "Strict".
  2) [firefox] › login.spec.ts:31:3 › login › keeps the user signed in after reload
    Expected: "/account"  Received: "/login"`,
    files: ["tests/e2e/login.spec.ts"],
    errorMessage: "Cookie rejected: SameSite"
  },
  {
    key: "auth-bcrypt-ko",
    kind: "note",
    content:
      "bcrypt cost 12 에서 로그인 응답이 350ms. 부하 테스트 기준을 맞추려고 cost 11 로 낮춤 (OWASP 권장 범위 안)."
  },
  {
    key: "auth-git-commit",
    kind: "success",
    toolName: "Bash",
    inputSummary: "git commit -m \"feat(auth): requireAuth middleware\"",
    content: `[feat/jwt-auth 3f9c2a1] feat(auth): requireAuth middleware
 4 files changed, 142 insertions(+), 4 deletions(-)
 create mode 100644 src/middleware/jwt.middleware.ts
 create mode 100644 src/services/refresh-token.service.ts`
  }
])

const payments = session("sess-shop-pay-01", SHOP, 40, [
  {
    key: "pay-read-client",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "services/payments/gateway_client.py",
    content: `class GatewayClient:
    def __init__(self, base_url: str, timeout_s: float = 30.0) -> None:
        self._http = httpx.Client(base_url=base_url, timeout=timeout_s)

    def charge(self, order_id: str, amount: int) -> ChargeResult:
        response = self._http.post("/v1/charges", json={"order_id": order_id, "amount": amount})
        response.raise_for_status()
        return ChargeResult.model_validate(response.json())`,
    files: ["services/payments/gateway_client.py"]
  },
  {
    key: "pay-timeout-error",
    kind: "error",
    toolName: "Bash",
    inputSummary: "pytest services/payments/tests/test_gateway.py -k timeout",
    content: `============================= test session starts ==============================
collected 9 items / 8 deselected / 1 selected

services/payments/tests/test_gateway.py F                                 [100%]

=================================== FAILURES ===================================
__________________________ test_charge_times_out ______________________________
    def test_charge_times_out(slow_gateway):
>       client.charge("ord_8812", 12900)
E       payments.errors.PaymentGatewayTimeout: gateway did not respond within 30s

services/payments/gateway_client.py:41: PaymentGatewayTimeout
=========================== short test summary info ============================
FAILED services/payments/tests/test_gateway.py::test_charge_times_out - payments.errors.PaymentGatewayTimeout
======================= 1 failed, 8 deselected in 30.42s =======================`,
    files: ["services/payments/tests/test_gateway.py", "services/payments/gateway_client.py"],
    errorMessage: "PaymentGatewayTimeout: gateway did not respond within 30s"
  },
  {
    key: "pay-timeout-ko",
    kind: "note",
    content:
      "결제 모듈에서 타임아웃: PG 응답이 30초를 넘으면 PaymentGatewayTimeout 이 난다. 재시도는 같은 idempotency key 로만 해야 이중 결제가 생기지 않음.",
    files: ["services/payments/gateway_client.py"]
  },
  {
    key: "pay-webhook-signature",
    kind: "error",
    toolName: "Bash",
    inputSummary: "stripe listen --forward-to localhost:3000/api/webhooks/stripe",
    content: `2026-10-11 14:02:19   --> payment_intent.succeeded [evt_3Q8x0aLkd2]
2026-10-11 14:02:19  <--  [400] POST http://localhost:3000/api/webhooks/stripe [evt_3Q8x0aLkd2]
api | StripeSignatureVerificationError: No signatures found matching the expected signature for payload.
api | Are you passing the raw request body you received from Stripe?
api |     at Object.verifyHeader (node_modules/stripe/cjs/Webhooks.js:116:19)
api |     at stripeWebhook (src/api/webhooks/stripe.ts:14:32)`,
    files: ["src/api/webhooks/stripe.ts"],
    errorMessage: "StripeSignatureVerificationError: No signatures found matching the expected signature for payload"
  },
  {
    key: "pay-webhook-ko",
    kind: "note",
    content:
      "Stripe webhook 서명 검증 실패 원인: 전역 express.json() 이 body 를 먼저 파싱해서 raw body 가 사라짐. webhook 라우트에만 "
      + "express.raw({ type: 'application/json' }) 적용해서 해결.",
    files: ["src/api/webhooks/stripe.ts", "src/api/app.ts"]
  },
  {
    key: "pay-intent-create",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/services/checkout.service.ts",
    content: `+  const intent = await stripe.paymentIntents.create({
+    amount: order.totalCents,
+    currency: "krw",
+    automatic_payment_methods: { enabled: true },
+    metadata: { orderId: order.id }
+  })
+  await orders.attachIntent(order.id, intent.id)`,
    files: ["src/services/checkout.service.ts"]
  },
  {
    key: "pay-pytest-refund-fail",
    kind: "error",
    toolName: "Bash",
    inputSummary: "pytest services/payments/tests/test_refund.py",
    content: `services/payments/tests/test_refund.py ..F.                               [100%]

=================================== FAILURES ===================================
_____________________ test_partial_refund_rounds_half_up _______________________
>       assert refund_amount(order, ratio=Decimal("0.3333")) == 3334
E       AssertionError: assert 3333 == 3334

services/payments/tests/test_refund.py:58: AssertionError
FAILED services/payments/tests/test_refund.py::test_partial_refund_rounds_half_up - AssertionError: assert 3333 == 3334
========================= 1 failed, 3 passed in 0.21s ==========================`,
    files: ["services/payments/tests/test_refund.py"],
    errorMessage: "AssertionError: assert 3333 == 3334"
  },
  {
    key: "pay-refund-fix",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "services/payments/refund.py",
    content: `-    return int(order.total * ratio)
+    return int((order.total * ratio).quantize(Decimal("1"), rounding=ROUND_HALF_UP))`,
    files: ["services/payments/refund.py"]
  },
  {
    key: "pay-refund-pass",
    kind: "success",
    toolName: "Bash",
    inputSummary: "pytest services/payments",
    content: `============================= test session starts ==============================
platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0
collected 23 items

services/payments/tests/test_gateway.py .........                        [ 39%]
services/payments/tests/test_refund.py ....                              [ 56%]
services/payments/tests/test_ledger.py ..........                        [100%]

============================== 23 passed in 31.07s =============================`
  },
  {
    key: "pay-refund-fail-ko",
    kind: "note",
    content:
      "부분 환불 금액이 1원 모자라서 결제가 실패했다는 CS 문의 3건. int() 버림 때문이었고 ROUND_HALF_UP 으로 수정.",
    files: ["services/payments/refund.py"]
  },
  {
    key: "pay-rate-limit",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run backfill:intents",
    content: `backfill: 412/1380 orders
StripeRateLimitError: Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.
    at StripeError.generate (node_modules/stripe/cjs/Error.js:42:20)
  statusCode: 429,
  requestId: 'req_9Kd02mXa'
backfill aborted; no retry configured`,
    files: ["scripts/backfill-intents.ts"],
    errorMessage: "StripeRateLimitError: Too many requests (status 429)"
  },
  {
    key: "pay-psycopg-unique-violation",
    kind: "error",
    toolName: "Bash",
    inputSummary: "python -m payments.worker --once",
    content: `Traceback (most recent call last):
  File "/work/shop/services/payments/ledger.py", line 64, in record_charge
    cur.execute(INSERT_CHARGE, params)
psycopg2.errors.UniqueViolation: duplicate key value violates unique constraint "charges_idempotency_key_key"
DETAIL:  Key (idempotency_key)=(ord_8812-charge) already exists.`,
    files: ["services/payments/ledger.py"],
    errorMessage: "psycopg2.errors.UniqueViolation"
  },
  {
    key: "pay-calculate-tax-fix",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/services/tax.ts",
    content: `-export function calculateTax(subtotal: number): number {
-  return subtotal * 0.1
+export function calculateTax(subtotal: number, region: Region): number {
+  // VAT is included in KRW prices; only foreign orders add it on top
+  return region === "KR" ? 0 : Math.round(subtotal * VAT_RATE[region])
 }`,
    files: ["src/services/tax.ts"]
  },
  {
    key: "pay-pip-install",
    kind: "success",
    toolName: "Bash",
    inputSummary: "pip install -r services/payments/requirements.txt",
    content: `Collecting httpx==0.27.2
  Using cached httpx-0.27.2-py3-none-any.whl (76 kB)
Collecting psycopg2-binary==2.9.10
Installing collected packages: sniffio, h11, psycopg2-binary, httpcore, httpx
Successfully installed h11-0.14.0 httpcore-1.0.6 httpx-0.27.2 psycopg2-binary-2.9.10 sniffio-1.3.1`
  },
  {
    key: "pay-git-diff",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "git diff --stat",
    content: ` services/payments/refund.py            |  2 +-
 services/payments/tests/test_refund.py | 14 ++++++++++++++
 src/services/checkout.service.ts       |  9 +++++++++
 src/services/tax.ts                    |  5 +++--
 4 files changed, 27 insertions(+), 3 deletions(-)`
  }
])

const database = session("sess-shop-db-01", SHOP, 35, [
  {
    key: "db-compose-up",
    kind: "success",
    toolName: "Bash",
    inputSummary: "docker compose up -d",
    content: `[+] Running 4/4
 ✔ Network shop_default       Created
 ✔ Container shop-postgres-1  Started
 ✔ Container shop-redis-1     Started
 ✔ Container shop-api-1       Started`,
    files: ["docker-compose.yml"]
  },
  {
    key: "db-econnrefused",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run migrate:up",
    content: `> shop@1.4.0 migrate:up
> knex migrate:up

Error: connect ECONNREFUSED 127.0.0.1:5432
    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16) {
  errno: -111,
  code: 'ECONNREFUSED',
  syscall: 'connect',
  address: '127.0.0.1',
  port: 5432
}`,
    files: ["knexfile.ts"],
    errorMessage: "connect ECONNREFUSED 127.0.0.1:5432"
  },
  {
    key: "db-compose-healthcheck",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "docker-compose.yml",
    content: `   postgres:
     image: postgres:17
+    healthcheck:
+      test: ["CMD-SHELL", "pg_isready -U shop -d shop"]
+      interval: 2s
+      retries: 15
   api:
     depends_on:
-      - postgres
+      postgres:
+        condition: service_healthy`,
    files: ["docker-compose.yml"]
  },
  {
    key: "db-compose-logs",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "docker compose logs postgres --tail 5",
    content: `shop-postgres-1  | 2026-10-16 02:11:04.512 UTC [1] LOG:  starting PostgreSQL 17.0 on x86_64-pc-linux-gnu
shop-postgres-1  | 2026-10-16 02:11:04.519 UTC [1] LOG:  listening on IPv4 address "0.0.0.0", port 5432
shop-postgres-1  | 2026-10-16 02:11:04.530 UTC [1] LOG:  database system is ready to accept connections`
  },
  {
    key: "db-migration-column-exists",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx knex migrate:up",
    content: `migration file "20261002_add_discount_code.ts" failed
migration failed with error: alter table "orders" add column "discount_code" varchar(32) - column "discount_code" of `
      + `relation "orders" already exists
error: column "discount_code" of relation "orders" already exists
    at Parser.parseErrorMessage (node_modules/pg-protocol/dist/parser.js:283:98)
  code: '42701'`,
    files: ["migrations/20261002_add_discount_code.ts"],
    errorMessage: "column \"discount_code\" of relation \"orders\" already exists"
  },
  {
    key: "db-rollback-ko",
    kind: "note",
    content:
      "마이그레이션을 롤백하고 discount_code 컬럼 추가를 IF NOT EXISTS 로 바꿔서 다시 적용함. 스테이징 DB 에는 수동으로 먼저 추가돼 있었음.",
    files: ["migrations/20261002_add_discount_code.ts"]
  },
  {
    key: "db-knex-migrate-latest",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npm run migrate:latest",
    content: `> shop@1.4.0 migrate:latest
> knex migrate:latest

Batch 7 run: 2 migrations`,
    files: ["migrations/20261002_add_discount_code.ts", "migrations/20261003_orders_user_created_idx.ts"]
  },
  {
    key: "db-unique-violation",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run seed",
    content: `error: duplicate key value violates unique constraint "users_email_key"
    at Parser.parseErrorMessage (node_modules/pg-protocol/dist/parser.js:283:98) {
  length: 219,
  severity: 'ERROR',
  code: '23505',
  detail: 'Key (email)=(kim.minji@example.com) already exists.',
  schema: 'public',
  table: 'users',
  constraint: 'users_email_key'
}`,
    files: ["seeds/01_users.ts"],
    errorMessage: "duplicate key value violates unique constraint users_email_key"
  },
  {
    key: "db-seed",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npm run seed",
    content: `> shop@1.4.0 seed
> knex seed:run

Ran 3 seed files
Seeded 120 products, 15 users, 40 orders`,
    files: ["seeds/01_users.ts", "seeds/02_products.ts", "seeds/03_orders.ts"]
  },
  {
    key: "db-sql-syntax",
    kind: "error",
    toolName: "Bash",
    inputSummary: "psql -f scripts/report.sql",
    content: `psql:scripts/report.sql:4: ERROR:  syntax error at or near "ORDER"
LINE 3:   GROUP BY user_id ORDER BY total DESC HAVING count(*) > 3
                           ^`,
    files: ["scripts/report.sql"],
    errorMessage: "syntax error at or near \"ORDER\""
  },
  {
    key: "db-read-knexfile",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "knexfile.ts",
    content: `export default {
  client: "pg",
  connection: process.env.DATABASE_URL,
  pool: { min: 2, max: 10, acquireTimeoutMillis: 2000 },
  migrations: { directory: "./migrations", extension: "ts" }
} satisfies Knex.Config`,
    files: ["knexfile.ts"]
  },
  {
    key: "db-explain-seq-scan",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "psql -c 'EXPLAIN ANALYZE SELECT * FROM orders WHERE user_id = 42 ORDER BY created_at DESC'",
    content: ` Sort  (cost=1843.21..1843.56 rows=140 width=96) (actual time=811.902..811.911 rows=137 loops=1)
   Sort Key: created_at DESC
   ->  Seq Scan on orders  (cost=0.00..1838.00 rows=140 width=96) (actual time=0.021..811.640 rows=137 loops=1)
         Filter: (user_id = 42)
         Rows Removed by Filter: 84863
 Planning Time: 0.118 ms
 Execution Time: 812.402 ms`
  },
  {
    key: "db-git-status-old",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "git status",
    content: GIT_STATUS_CLEAN
  },
  {
    key: "db-timeout-ko",
    kind: "note",
    content:
      "DB 연결 타임아웃: knex pool 의 acquireTimeoutMillis 가 2초라 마이그레이션 중에 커넥션을 못 얻음. 10초로 늘림.",
    files: ["knexfile.ts"]
  }
])

const cart = session("sess-shop-cart-01", SHOP, 30, [
  {
    key: "cart-read-checkout-page",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "src/web/pages/checkout.tsx",
    content: `export default function CheckoutPage() {
  const items = useCartStore((s) => s.items)
  const total = items.reduce((sum, i) => sum + i.price * i.quantity, 0)
  return <CheckoutForm items={items} total={total} />
}`,
    files: ["src/web/pages/checkout.tsx"]
  },
  {
    key: "cart-key-warning",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/web/components",
    content: `stderr | src/web/components/CartItemList.test.tsx > CartItemList > renders every item
Warning: Each child in a list should have a unique "key" prop.

Check the render method of \`CartItemList\`. See https://reactjs.org/link/warning-keys for more information.
    at CartItem (src/web/components/CartItem.tsx:12:3)
    at CartItemList (src/web/components/CartItemList.tsx:8:5)`,
    files: ["src/web/components/CartItemList.tsx", "src/web/components/CartItem.tsx"],
    errorMessage: "Warning: Each child in a list should have a unique \"key\" prop."
  },
  {
    key: "cart-useeffect-loop",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run dev:web",
    content: `Warning: Maximum update depth exceeded. This can happen when a component calls setState inside `
      + `useEffect, but useEffect either doesn't have a dependency array, or one of the dependencies changes on `
      + `every render.
    at CartSummary (src/web/components/CartSummary.tsx:21:5)
    at aside
    at CartDrawer (src/web/components/CartDrawer.tsx:17:3)`,
    files: ["src/web/components/CartSummary.tsx"],
    errorMessage: "Warning: Maximum update depth exceeded."
  },
  {
    key: "cart-useeffect-loop-ko",
    kind: "note",
    content:
      "CartSummary 에서 useEffect 무한 루프: 의존성 배열에 렌더마다 새로 만들어지는 items 배열이 들어가 있었음. useMemo 로 감싸서 해결.",
    files: ["src/web/components/CartSummary.tsx"]
  },
  {
    key: "cart-drawer-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/web/components/CartDrawer.tsx",
    content: `-    <aside className="cart-drawer" hidden={!open}>
+    <aside className="cart-drawer" aria-hidden={!open} data-open={open}>
+      <button type="button" className="cart-drawer__close" onClick={onClose} aria-label="닫기" />`,
    files: ["src/web/components/CartDrawer.tsx"]
  },
  {
    key: "cart-zustand-store",
    kind: "tool_use",
    toolName: "Write",
    inputSummary: "src/web/store/useCartStore.ts",
    content: `export const useCartStore = create<CartState>()(
  persist(
    (set) => ({
      items: [],
      addItem: (item) => set((s) => ({ items: mergeLine(s.items, item) })),
      clear: () => set({ items: [] })
    }),
    { name: "shop-cart" }
  )
)`,
    files: ["src/web/store/useCartStore.ts"]
  },
  {
    key: "cart-grep-usecart",
    kind: "tool_use",
    toolName: "Grep",
    inputSummary: "useCartStore",
    content: `src/web/pages/checkout.tsx:2:  const items = useCartStore((s) => s.items)
src/web/components/CartDrawer.tsx:9:  const count = useCartStore((s) => s.items.length)
src/web/components/CartSummary.tsx:6:  const items = useCartStore((s) => s.items)`,
    files: ["src/web/pages/checkout.tsx", "src/web/components/CartDrawer.tsx", "src/web/components/CartSummary.tsx"]
  },
  {
    key: "cart-format-price",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/web/lib/formatPrice.test.ts",
    content: ` FAIL  src/web/lib/formatPrice.test.ts > formatPrice > formats KRW without decimals
AssertionError: expected 'NaN원' to be '12,900원' // Object.is equality

- Expected
+ Received

- 12,900원
+ NaN원

 ❯ src/web/lib/formatPrice.test.ts:6:31`,
    files: ["src/web/lib/formatPrice.test.ts", "src/web/lib/formatPrice.ts"],
    errorMessage: "AssertionError: expected 'NaN원' to be '12,900원'"
  },
  {
    key: "cart-format-price-fix",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/web/lib/formatPrice.ts",
    content: `-  return new Intl.NumberFormat("ko-KR").format(price.amount) + "원"
+  return new Intl.NumberFormat("ko-KR").format(Number(price)) + "원"`,
    files: ["src/web/lib/formatPrice.ts"]
  },
  {
    key: "cart-note-ko",
    kind: "note",
    content:
      "장바구니 수량을 바꿔도 총액이 갱신되지 않는 버그: CartSummary 의 selector 가 items 대신 count 만 구독하고 있었다."
  },
  {
    key: "cart-hydration",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run dev:web",
    content: `Error: Hydration failed because the server rendered text didn't match the client. As a result this `
      + `tree will be regenerated on the client.
- Server: "₩0"
+ Client: "₩12,900"
    at CartBadge (src/web/components/CartBadge.tsx:7:10)`,
    files: ["src/web/components/CartBadge.tsx"],
    errorMessage: "Error: Hydration failed because the server rendered text didn't match the client."
  },
  {
    key: "cart-unterminated",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run build:web",
    content: `vite v6.0.3 building for production...
✓ 212 modules transformed.
x Build failed in 1.92s
error during build:
[vite:json] [plugin vite:json] src/web/i18n/ko.json: Failed to parse JSON file.
SyntaxError: Unterminated string in JSON at position 1184 (line 41 column 28)`,
    files: ["src/web/i18n/ko.json"],
    errorMessage: "SyntaxError: Unterminated string in JSON at position 1184"
  },
  {
    key: "cart-dom-nesting",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/web/components/CartItem.test.tsx",
    content: `Warning: validateDOMNesting(...): <button> cannot appear as a descendant of <button>.
    at button
    at CartItem (src/web/components/CartItem.tsx:18:7)`,
    files: ["src/web/components/CartItem.tsx"],
    errorMessage: "validateDOMNesting: <button> cannot appear as a descendant of <button>"
  },
  {
    key: "cart-vitest-pass",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npx vitest run src/web",
    content: ` ✓ src/web/components/CartItem.test.tsx (4 tests) 38ms
 ✓ src/web/components/CartItemList.test.tsx (3 tests) 41ms
 ✓ src/web/lib/formatPrice.test.ts (5 tests) 6ms
 ✓ src/web/store/useCartStore.test.ts (8 tests) 12ms

 Test Files  6 passed (6)
      Tests  31 passed (31)`
  }
])

const strict = session("sess-shop-ts-01", SHOP, 25, [
  {
    key: "ts-tsconfig-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "tsconfig.json",
    content: `-    "strict": false,
+    "strict": true,
+    "noImplicitOverride": true,
     "module": "NodeNext",`,
    files: ["tsconfig.json"]
  },
  {
    key: "ts-strict-ko",
    kind: "note",
    content:
      "tsconfig 에 strict 켰더니 타입 에러 87개. 오늘은 services 와 api 만 정리하고 noUncheckedIndexedAccess 는 다음 스프린트에.",
    files: ["tsconfig.json"]
  },
  {
    key: "ts-2322-error",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx tsc --noEmit -p tsconfig.json",
    content: `src/services/checkout.service.ts(48,11): error TS2322: Type 'string | undefined' is not assignable to `
      + `type 'string'.
  Type 'undefined' is not assignable to type 'string'.

Found 1 error in src/services/checkout.service.ts:48`,
    files: ["src/services/checkout.service.ts"],
    errorMessage: "error TS2322: Type 'string | undefined' is not assignable to type 'string'."
  },
  {
    key: "ts-2345-error",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx tsc --noEmit -p tsconfig.json",
    content: `src/api/routes/orders.ts(31,27): error TS2345: Argument of type 'number' is not assignable to `
      + `parameter of type 'OrderId'.

Found 1 error in src/api/routes/orders.ts:31`,
    files: ["src/api/routes/orders.ts"],
    errorMessage: "error TS2345: Argument of type 'number' is not assignable to parameter of type 'OrderId'."
  },
  {
    key: "ts-7006-error",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx tsc --noEmit -p tsconfig.json",
    content: `src/api/controllers/orders.controller.ts(12,35): error TS7006: Parameter 'req' implicitly has an 'any' `
      + `type.
src/api/controllers/orders.controller.ts(12,40): error TS7006: Parameter 'res' implicitly has an 'any' type.

Found 2 errors in the same file, starting at: src/api/controllers/orders.controller.ts:12`,
    files: ["src/api/controllers/orders.controller.ts"],
    errorMessage: "error TS7006: Parameter 'req' implicitly has an 'any' type."
  },
  {
    key: "ts-2532-error",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx tsc --noEmit -p tsconfig.json",
    content: `src/web/pages/checkout.tsx(19,5): error TS2532: Object is possibly 'undefined'.

Found 1 error in src/web/pages/checkout.tsx:19`,
    files: ["src/web/pages/checkout.tsx"],
    errorMessage: "error TS2532: Object is possibly 'undefined'."
  },
  {
    key: "ts-2322-fix",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/services/checkout.service.ts",
    content: `-  const currency: string = order.currency
+  const currency: string = order.currency ?? "KRW"`,
    files: ["src/services/checkout.service.ts"]
  },
  {
    key: "ts-grep-any",
    kind: "tool_use",
    toolName: "Grep",
    inputSummary: ": any\\b",
    content: `src/api/controllers/orders.controller.ts:12:export const listOrders = async (req: any, res: any) => {
src/lib/logger.ts:4:export function log(level: string, data: any) {
scripts/debug-jwt.ts:3:const decoded: any = jwt.decode(process.argv[2])`,
    files: ["src/api/controllers/orders.controller.ts", "src/lib/logger.ts", "scripts/debug-jwt.ts"]
  },
  {
    key: "ts-unknown-extension",
    kind: "error",
    toolName: "Bash",
    inputSummary: "node scripts/seed-products.ts",
    content: `node:internal/modules/run_main:123
    triggerUncaughtException(
    ^
TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension ".ts" for /work/shop/scripts/seed-products.ts
    at Object.getFileProtocolModuleFormat [as file:] (node:internal/modules/esm/get_format:218:9) {
  code: 'ERR_UNKNOWN_FILE_EXTENSION'
}`,
    files: ["scripts/seed-products.ts"],
    errorMessage: "TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension \".ts\""
  },
  {
    key: "ts-zod-infer",
    kind: "tool_use",
    toolName: "Write",
    inputSummary: "src/schemas/order.ts",
    content: `export const OrderSchema = z.object({
  id: z.string().brand<"OrderId">(),
  userId: z.string(),
  items: z.array(OrderLineSchema).min(1),
  currency: z.enum(["KRW", "USD"]).default("KRW")
})
export type Order = z.infer<typeof OrderSchema>`,
    files: ["src/schemas/order.ts"]
  },
  {
    key: "ts-tsc-clean",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npx tsc --noEmit -p tsconfig.json && echo ok",
    content: "ok"
  }
])

const thumbs = session("sess-shop-rust-01", SHOP, 20, [
  {
    key: "rust-read-handlers",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "services/thumbs/src/handlers.rs",
    content: `pub async fn thumbnail(Path(id): Path<String>, State(app): State<AppState>) -> impl IntoResponse {
    let bytes = app.store.get(&id).await?;
    let img = image::load_from_memory(&bytes).unwrap();
    let resized = resize_to_fit(img, 320, 320);
    encode_webp(&resized)
}`,
    files: ["services/thumbs/src/handlers.rs"]
  },
  {
    key: "rust-cargo-toml-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "services/thumbs/Cargo.toml",
    content: ` [dependencies]
-image = "0.24"
+image = { version = "0.25", default-features = false, features = ["jpeg", "png", "webp"] }
 tokio = { version = "1", features = ["full"] }
 axum = "0.7"`,
    files: ["services/thumbs/Cargo.toml"]
  },
  {
    key: "rust-e0432",
    kind: "error",
    toolName: "Bash",
    inputSummary: "cargo build --manifest-path services/thumbs/Cargo.toml",
    content: `   Compiling thumbs v0.3.0 (/work/shop/services/thumbs)
error[E0432]: unresolved import \`image::io::Reader\`
 --> src/decode.rs:3:5
  |
3 | use image::io::Reader;
  |     ^^^^^^^^^^^^^^^^^ no \`Reader\` in \`io\`

error: could not compile \`thumbs\` (bin "thumbs") due to 1 previous error`,
    files: ["services/thumbs/src/decode.rs"],
    errorMessage: "error[E0432]: unresolved import `image::io::Reader`"
  },
  {
    key: "rust-borrow-e0502",
    kind: "error",
    toolName: "Bash",
    inputSummary: "cargo build --manifest-path services/thumbs/Cargo.toml",
    content: `   Compiling thumbs v0.3.0 (/work/shop/services/thumbs)
error[E0502]: cannot borrow \`cache\` as mutable because it is also borrowed as immutable
  --> src/cache.rs:42:9
   |
41 |         let entry = cache.get(&key);
   |                     ----- immutable borrow occurs here
42 |         cache.insert(key.clone(), resized);
   |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ mutable borrow occurs here
43 |         entry.map(|e| e.len())
   |         ----- immutable borrow later used here

For more information about this error, try \`rustc --explain E0502\`.
error: could not compile \`thumbs\` (bin "thumbs") due to 1 previous error`,
    files: ["services/thumbs/src/cache.rs"],
    errorMessage: "error[E0502]: cannot borrow `cache` as mutable because it is also borrowed as immutable"
  },
  {
    key: "rust-e0382",
    kind: "error",
    toolName: "Bash",
    inputSummary: "cargo build --manifest-path services/thumbs/Cargo.toml",
    content: `error[E0382]: borrow of moved value: \`img\`
  --> src/handlers.rs:9:20
   |
6  |     let img = image::load_from_memory(&bytes)?;
   |         --- move occurs because \`img\` has type \`DynamicImage\`, which does not implement the \`Copy\` trait
7  |     let resized = resize_to_fit(img, 320, 320);
   |                                 --- value moved here
9  |     let (w, h) = img.dimensions();
   |                  ^^^ value borrowed here after move`,
    files: ["services/thumbs/src/handlers.rs"],
    errorMessage: "error[E0382]: borrow of moved value: `img`"
  },
  {
    key: "rust-cargo-test-pass",
    kind: "success",
    toolName: "Bash",
    inputSummary: "cargo test --manifest-path services/thumbs/Cargo.toml",
    content: `running 12 tests
test resize::tests::keeps_aspect_ratio ... ok
test resize::tests::never_upscales ... ok
test cache::tests::evicts_least_recently_used ... ok

test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.41s`
  },
  {
    key: "rust-clippy",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "cargo clippy --manifest-path services/thumbs/Cargo.toml",
    content: `warning: this expression creates a reference which is immediately dereferenced by the compiler
  --> src/handlers.rs:6:43
   |
   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#needless_borrow
warning: \`thumbs\` (bin "thumbs") generated 3 warnings (run \`cargo clippy --fix --bin "thumbs"\` to apply 3 `
      + `suggestions)`,
    files: ["services/thumbs/src/handlers.rs"]
  },
  {
    key: "rust-clippy-ko",
    kind: "note",
    content:
      "clippy 경고 3개 정리 (needless_borrow, collapsible_match). CI 에서는 cargo clippy -- -D warnings 로 막기로 함."
  },
  {
    key: "rust-panic-unwrap",
    kind: "error",
    toolName: "Bash",
    inputSummary: "curl -s -o /dev/null -w '%{http_code}' localhost:8081/thumb/p_102",
    content: `thumbs-1  | thread 'tokio-runtime-worker' panicked at src/handlers.rs:3:47:
thumbs-1  | called \`Result::unwrap()\` on an \`Err\` value: Unsupported(UnsupportedError { format: Exact(Avif), `
      + `kind: Format(Exact(Avif)) })
thumbs-1  | note: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace
000`,
    files: ["services/thumbs/src/handlers.rs"],
    errorMessage: "panicked: called `Result::unwrap()` on an `Err` value: Unsupported"
  },
  {
    key: "rust-avif-ko",
    kind: "note",
    content:
      "AVIF 이미지를 올리면 썸네일 서버가 panic 으로 죽는다. unwrap 대신 415 Unsupported Media Type 을 돌려주도록 수정 필요.",
    files: ["services/thumbs/src/handlers.rs"]
  },
  {
    key: "rust-docker-build",
    kind: "success",
    toolName: "Bash",
    inputSummary: "docker build -t shop/thumbs:0.3.0 services/thumbs",
    content: `[+] Building 94.2s (14/14) FINISHED
 => [builder 4/5] RUN cargo build --release                               88.1s
 => [runtime 2/3] COPY --from=builder /app/target/release/thumbs /usr/local/bin/
 => exporting to image                                                     0.4s
 => => naming to docker.io/shop/thumbs:0.3.0`
  }
])

const ci = session("sess-shop-ci-01", SHOP, 15, [
  {
    key: "ci-lint-clean-old",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npm run lint",
    content: LINT_CLEAN
  },
  {
    key: "ci-workflow-write",
    kind: "tool_use",
    toolName: "Write",
    inputSummary: ".github/workflows/ci.yml",
    content: `name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        shard: [1, 2, 3, 4]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 22, cache: npm }
      - run: npm ci
      - run: npx vitest run --shard=\${{ matrix.shard }}/4`,
    files: [".github/workflows/ci.yml"]
  },
  {
    key: "ci-npm-ci-fail",
    kind: "error",
    toolName: "Bash",
    inputSummary: "gh run view 11873320452 --log-failed",
    content: `test (2)  Run npm ci
test (2)  npm ERR! code EUSAGE
test (2)  npm ERR!
test (2)  npm ERR! \`npm ci\` can only install packages when your package.json and package-lock.json are in sync. `
      + `Please update your lock file with \`npm install\` before continuing.
test (2)  npm ERR! Missing: zod@3.23.8 from lock file`,
    files: ["package-lock.json"],
    errorMessage: "npm ERR! code EUSAGE"
  },
  {
    key: "ci-flaky-e2e-fail",
    kind: "error",
    toolName: "Bash",
    inputSummary: "gh run view 11873391107 --log-failed",
    content: `test (3)   FAIL  tests/e2e/checkout.e2e.test.ts > checkout > completes a card payment
test (3)  Error: Timed out 5000ms waiting for expect(locator).toBeVisible()
test (3)  Locator: getByText('주문이 완료되었습니다')
test (3)   Test Files  1 failed | 23 passed (24)`,
    files: ["tests/e2e/checkout.e2e.test.ts"],
    errorMessage: "Timed out 5000ms waiting for expect(locator).toBeVisible()"
  },
  {
    key: "ci-flaky-retry",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "vitest.config.ts",
    content: `   test: {
+    // checkout.e2e is flaky on CI runners (slow Stripe test mode): retry twice there, never locally
+    retry: process.env.CI ? 2 : 0,
     testTimeout: 15_000,`,
    files: ["vitest.config.ts"]
  },
  {
    key: "ci-runinband",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "package.json",
    content: `-    "test:ci": "jest --ci --coverage",
+    "test:ci": "jest --ci --coverage --runInBand",
 jest workers were OOM-killed on the 2-core runner; running in band is slower but stable`,
    files: ["package.json"]
  },
  {
    key: "ci-slow-tests-ko",
    kind: "note",
    content: "테스트가 너무 느려서 (CI 6분) vitest pool 을 threads 로 바꾸고 4개 shard 로 나눔. 이제 1분 40초.",
    files: [".github/workflows/ci.yml", "vitest.config.ts"]
  },
  {
    key: "ci-coverage",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npx vitest run --coverage",
    content: ` % Coverage report from v8
-------------------|---------|----------|---------|---------|
File               | % Stmts | % Branch | % Funcs | % Lines |
-------------------|---------|----------|---------|---------|
All files          |   82.41 |    71.18 |   79.03 |   82.41 |
 src/services      |   91.02 |    80.55 |   88.00 |   91.02 |
 src/web/components|   74.80 |    62.10 |   70.37 |   74.80 |`
  },
  {
    key: "ci-husky",
    kind: "error",
    toolName: "Bash",
    inputSummary: "git commit -m \"ci: shard vitest\"",
    content: `✖ eslint --fix:
/work/shop/src/web/components/CartDrawer.tsx
  17:9  error  'count' is assigned a value but never used  @typescript-eslint/no-unused-vars
husky - pre-commit script failed (code 1)`,
    files: ["src/web/components/CartDrawer.tsx"],
    errorMessage: "husky - pre-commit script failed (code 1)"
  },
  {
    key: "ci-cache-ko",
    kind: "note",
    content:
      "actions/setup-node 의 npm 캐시가 lock 파일 해시 기준이라 워크스페이스 추가 후에도 잘 맞음. 별도 actions/cache 는 제거."
  }
])

const searchSession = session("sess-shop-search-01", SHOP, 10, [
  {
    key: "search-read-mapping",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "src/search/mapping.json",
    content: `{
  "properties": {
    "productName": { "type": "text", "analyzer": "standard" },
    "unitPrice": { "type": "long" },
    "categoryId": { "type": "keyword" }
  }
}`,
    files: ["src/search/mapping.json"]
  },
  {
    key: "search-grep-productname",
    kind: "tool_use",
    toolName: "Grep",
    inputSummary: "productName",
    content: `src/search/product-index.ts:14:    productName: p.name,
src/search/query-builder.ts:8:  { match: { productName: { query, boost: 3 } } },
src/web/components/SearchBox.tsx:22:  <li key={hit.id}>{hit.productName}</li>`,
    files: ["src/search/product-index.ts", "src/search/query-builder.ts", "src/web/components/SearchBox.tsx"]
  },
  {
    key: "search-snake-case-rename",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/search/product-index.ts",
    content: `Rename the indexed fields from camelCase to snake_case so they match the Elasticsearch mapping and the `
      + `Python indexer:
-    productName: p.name,
-    unitPrice: p.priceCents,
-    categoryId: p.categoryId,
+    product_name: p.name,
+    unit_price: p.priceCents,
+    category_id: p.categoryId,`,
    files: ["src/search/product-index.ts"]
  },
  {
    key: "search-es-mapping-error",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run search:reindex",
    content: `ResponseError: illegal_argument_exception
  Root causes:
    illegal_argument_exception: mapper [unit_price] cannot be changed from type [long] to [float]
    at SniffingTransport._request (node_modules/@elastic/transport/lib/Transport.js:543:27)
  meta: { statusCode: 400 }`,
    files: ["src/search/mapping.json"],
    errorMessage: "mapper [unit_price] cannot be changed from type [long] to [float]"
  },
  {
    key: "search-es-connect",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run search:reindex",
    content: `ConnectionError: connect ECONNREFUSED 127.0.0.1:9200
    at ClientRequest.onError (node_modules/@elastic/transport/lib/connection/HttpConnection.js:199:33)
  meta: { body: undefined, statusCode: null, meta: { attempts: 3, aborted: false } }`,
    errorMessage: "ConnectionError: connect ECONNREFUSED 127.0.0.1:9200"
  },
  {
    key: "search-reindex",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npm run search:reindex",
    content: `> shop@1.4.0 search:reindex
> tsx scripts/reindex-products.ts

created index products_v7 with mapping (analysis: nori)
indexed 12,480 products in 41.2s
alias products -> products_v7`
  },
  {
    key: "search-nori-install",
    kind: "success",
    toolName: "Bash",
    inputSummary: "docker compose exec elasticsearch bin/elasticsearch-plugin install analysis-nori",
    content: `-> Installing analysis-nori
-> Downloading analysis-nori from elastic
-> Installed analysis-nori
-> Please restart Elasticsearch to activate any plugins installed`
  },
  {
    key: "search-ko",
    kind: "note",
    content:
      "상품 검색에서 한국어 형태소 분석이 안 돼서 '운동화를' 로는 안 나옴. nori 분석기를 product_name 필드에 적용하고 재색인.",
    files: ["src/search/mapping.json"]
  },
  {
    key: "search-test-fail",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/search",
    content: ` FAIL  src/search/query-builder.test.ts > buildProductQuery > boosts exact name matches above `
      + `description matches
AssertionError: expected [ 'p_102', 'p_7' ] to deeply equal [ 'p_7', 'p_102' ]
 ❯ src/search/query-builder.test.ts:27:40`,
    files: ["src/search/query-builder.test.ts"],
    errorMessage: "AssertionError: expected [ 'p_102', 'p_7' ] to deeply equal [ 'p_7', 'p_102' ]"
  },
  {
    key: "search-debounce",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/web/components/SearchBox.tsx",
    content: `-  useEffect(() => { void search(query) }, [query])
+  const debounced = useDebouncedValue(query, 300)
+  useEffect(() => { void search(debounced) }, [debounced])`,
    files: ["src/web/components/SearchBox.tsx"]
  }
])

const payments2 = session("sess-shop-pay-02", SHOP, 12, [
  {
    key: "pay2-timeout-config",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: ".env.example",
    content: `-PAYMENT_GATEWAY_TIMEOUT_MS=30000
+PAYMENT_GATEWAY_TIMEOUT_MS=45000
+PAYMENT_GATEWAY_MAX_RETRIES=2`,
    files: [".env.example"]
  },
  {
    key: "pay2-status-recheck-ko",
    kind: "note",
    content:
      "응답이 늦게 온 건은 payment_intent.succeeded 웹훅으로 상태를 다시 확인. 주문은 pending_payment 로 두고 15분 뒤 만료.",
    files: ["src/api/webhooks/stripe.ts"]
  },
  {
    key: "pay2-stripe-trigger",
    kind: "success",
    toolName: "Bash",
    inputSummary: "stripe trigger payment_intent.succeeded",
    content: `Setting up fixture for: payment_intent
Running fixture for: payment_intent
Setting up fixture for: payment_intent_confirm
Trigger succeeded! Check dashboard for event details.`
  },
  {
    key: "pay2-idempotency-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "services/payments/gateway_client.py",
    content: `-        response = self._http.post("/v1/charges", json=payload)
+        response = self._http.post("/v1/charges", json=payload, headers={"Idempotency-Key": f"{order_id}-charge"})`,
    files: ["services/payments/gateway_client.py"]
  },
  {
    key: "pay2-pytest-pass",
    kind: "success",
    toolName: "Bash",
    inputSummary: "pytest services/payments -q",
    content: `........................                                                 [100%]
24 passed in 30.88s`
  },
  {
    key: "pay2-receipt-ko",
    kind: "note",
    content:
      "결제 완료 후 영수증 메일이 두 번 가는 문제: 웹훅과 클라이언트 콜백 둘 다 sendReceipt 를 부름. 웹훅 쪽만 남김.",
    files: ["src/services/receipt.service.ts"]
  }
])

const authSession = session("sess-shop-authsess-01", SHOP, 7, [
  {
    key: "authsess-read-config",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "src/config/session.ts",
    content: `export const sessionConfig = {
  accessTtlSeconds: 15 * 60,
  refreshTtlDays: 14,
  redisPrefix: "sess:"
} as const`,
    files: ["src/config/session.ts"]
  },
  {
    key: "authsess-expiry-ko",
    kind: "note",
    content:
      "인증에서 세션 만료 처리: access 는 15분, refresh 는 14일. 만료되면 /api/session/refresh 로 한 번 자동 갱신하고, 그것도 실패하면 로그인 페이지로 "
      + "보낸다.",
    files: ["src/web/lib/api-client.ts", "src/config/session.ts"]
  },
  {
    key: "authsess-redis-store",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/session/store.ts",
    content: `+import { RedisStore } from "connect-redis"
+
+export const sessionStore = new RedisStore({ client: redis, prefix: sessionConfig.redisPrefix, ttl: 14 * 86400 })
-export const sessionStore = new MemoryStore()`,
    files: ["src/session/store.ts"]
  },
  {
    key: "authsess-redis-econnrefused",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run dev:api",
    content: `[ioredis] Unhandled error event: Error: connect ECONNREFUSED 127.0.0.1:6379
    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16)
[ioredis] Unhandled error event: Error: connect ECONNREFUSED 127.0.0.1:6379`,
    errorMessage: "connect ECONNREFUSED 127.0.0.1:6379"
  },
  {
    key: "authsess-redis-timeout",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/session",
    content: ` FAIL  src/session/store.test.ts > sessionStore > loads a session under load
Error: Command timed out
 ❯ Timeout._onTimeout node_modules/ioredis/built/Command.js:192:33
redis GET sess:8f1c2b timed out after 500ms (commandTimeout)`,
    files: ["src/session/store.test.ts", "src/session/store.ts"],
    errorMessage: "Error: Command timed out"
  },
  {
    key: "authsess-refresh-test-fail",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/session/refresh.test.ts",
    content: ` FAIL  src/session/refresh.test.ts > refreshSession > rotates the refresh token on every use
AssertionError: expected 'rt_a81f' not to be 'rt_a81f' // Object.is equality
 ❯ src/session/refresh.test.ts:33:29`,
    files: ["src/session/refresh.test.ts"],
    errorMessage: "AssertionError: expected 'rt_a81f' not to be 'rt_a81f'"
  },
  {
    key: "authsess-pass",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npx vitest run src/session",
    content: ` ✓ src/session/store.test.ts (5 tests) 211ms
 ✓ src/session/refresh.test.ts (6 tests) 34ms

 Test Files  2 passed (2)
      Tests  11 passed (11)`
  },
  {
    key: "authsess-logout-ko",
    kind: "note",
    content:
      "로그아웃해도 redis 세션이 안 지워지는 문제: req.session.destroy 콜백을 기다리지 않고 응답을 보냄. await 로 바꿈.",
    files: ["src/api/controllers/auth.controller.ts"]
  },
  {
    key: "authsess-cookie-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/session/cookies.ts",
    content: `-  sameSite: "strict",
+  sameSite: "lax",
+  secure: process.env.NODE_ENV === "production",
   httpOnly: true,`,
    files: ["src/session/cookies.ts"]
  }
])

const perf = session("sess-shop-perf-01", SHOP, 5, [
  {
    key: "perf-orders-controller-read",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "src/api/controllers/orders.controller.ts",
    content: `export const listOrders = async (req: Request, res: Response) => {
  const orders = await db("orders").where({ user_id: req.user.id }).orderBy("created_at", "desc")
  for (const order of orders) order.items = await db("order_items").where({ order_id: order.id })
  res.json(orders)
}`,
    files: ["src/api/controllers/orders.controller.ts"]
  },
  {
    key: "perf-n-plus-one",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "DEBUG=knex:query npm run dev:api",
    content: `knex:query select * from "orders" where "user_id" = $1 order by "created_at" desc
knex:query select * from "order_items" where "order_id" = $1
knex:query select * from "order_items" where "order_id" = $1
... (49 more)
GET /api/orders 200 1843.221 ms - 51 queries: N+1 query, one select of order_items per order; the endpoint is slow`,
    files: ["src/api/controllers/orders.controller.ts"]
  },
  {
    key: "perf-n-plus-one-ko",
    kind: "note",
    content:
      "주문 목록 API 가 느린 원인은 N+1 쿼리 문제. order_items 를 whereIn 으로 한 번에 가져와서 메모리에서 묶음. 1.8초 → 90ms.",
    files: ["src/api/controllers/orders.controller.ts", "src/repositories/orders.repository.ts"]
  },
  {
    key: "perf-edit-wherein",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/repositories/orders.repository.ts",
    content: `+  const lines = await db("order_items").whereIn("order_id", orders.map((o) => o.id))
+  const byOrder = Map.groupBy(lines, (l) => l.order_id)
+  return orders.map((o) => ({ ...o, items: byOrder.get(o.id) ?? [] }))`,
    files: ["src/repositories/orders.repository.ts"]
  },
  {
    key: "perf-autocannon",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npx autocannon -c 50 -d 10 http://localhost:3000/api/orders",
    content: `Running 10s test @ http://localhost:3000/api/orders
50 connections

│ Stat    │ 2.5% │ 50%   │ 97.5% │ 99%   │ Avg      │
│ Latency │ 61ms │ 88ms  │ 140ms │ 171ms │ 92.14 ms │

5k requests in 10.02s, 14.1 MB read`
  },
  {
    key: "perf-max-listeners",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run dev:api",
    content: `(node:48211) MaxListenersExceededWarning: Possible EventEmitter memory leak detected. 11 close `
      + `listeners added to [Socket]. MaxListeners is 10. Use emitter.setMaxListeners() to increase limit
    at _addListener (node:events:591:17)
    at Socket.addListener (node:events:609:10)
    at subscribeOrderUpdates (src/realtime/order-updates.ts:23:10)`,
    files: ["src/realtime/order-updates.ts"],
    errorMessage: "MaxListenersExceededWarning: Possible EventEmitter memory leak detected."
  },
  {
    key: "perf-heap-oom",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run export:orders",
    content: `<--- Last few GCs --->
[51734:0x7f3c2a8]    41022 ms: Mark-Compact 2038.1 (2083.4) -> 2035.9 (2084.1) MB, 1712.33 / 0.00 ms  (average mu = `
      + `0.113) allocation failure
FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory`,
    files: ["scripts/export-orders.ts"],
    errorMessage: "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"
  },
  {
    key: "perf-cache-invalidation-ko",
    kind: "note",
    content:
      "상품 가격을 바꿔도 예전 가격이 보이는 버그: updateProduct 에서 product:{id} 캐시 무효화를 빼먹음. 저장 후 redis DEL 추가.",
    files: ["src/services/product.service.ts"]
  },
  {
    key: "perf-explain-after",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "psql -c 'EXPLAIN ANALYZE SELECT * FROM orders WHERE user_id = 42 ORDER BY created_at DESC'",
    content: ` Index Scan using orders_user_created_idx on orders  (cost=0.42..312.10 rows=140 width=96) (actual `
      + `time=0.031..0.402 rows=137 loops=1)
   Index Cond: (user_id = 42)
 Planning Time: 0.097 ms
 Execution Time: 3.118 ms`
  }
])

const deps = session("sess-shop-deps-01", SHOP, 3, [
  {
    key: "deps-outdated",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "npm outdated",
    content: `Package               Current  Wanted  Latest  Location                          Depended by
vite                    5.4.10  5.4.11   6.0.3  node_modules/vite                 shop
vite-plugin-checker      0.6.4   0.6.4   0.8.0  node_modules/vite-plugin-checker  shop
@types/node            20.17.6 20.17.9  22.10.1  node_modules/@types/node          shop`
  },
  {
    key: "deps-eresolve-vite",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm install vite@6 --save-dev",
    content: `npm ERR! code ERESOLVE
npm ERR! ERESOLVE unable to resolve dependency tree
npm ERR!
npm ERR! While resolving: shop@1.4.0
npm ERR! Found: vite@6.0.3
npm ERR! node_modules/vite
npm ERR!   dev vite@"^6.0.3" from the root project
npm ERR!
npm ERR! Could not resolve dependency:
npm ERR! peer vite@"^4.0.0 || ^5.0.0" from vite-plugin-checker@0.6.4
npm ERR!
npm ERR! Fix the upstream dependency conflict, or retry this command with --force or --legacy-peer-deps`,
    files: ["package.json"],
    errorMessage: "npm ERR! ERESOLVE unable to resolve dependency tree"
  },
  {
    key: "deps-ko",
    kind: "note",
    content:
      "vite 6 업그레이드: vite-plugin-checker 0.6 이 peer 로 vite 5 까지만 받아서 0.8 로 같이 올림. --legacy-peer-deps 는 쓰지 않기로.",
    files: ["package.json"]
  },
  {
    key: "deps-npm-install-ok",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npm install vite@6 vite-plugin-checker@0.8 --save-dev",
    content: `added 12 packages, removed 3 packages, changed 9 packages, and audited 1204 packages in 14s

188 packages are looking for funding
  run \`npm fund\` for details

found 0 vulnerabilities`,
    files: ["package.json", "package-lock.json"]
  },
  {
    key: "deps-vite-config-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "vite.config.ts",
    content: `   plugins: [
     react(),
-    checker({ typescript: true }),
+    checker({ typescript: { tsconfigPath: "tsconfig.web.json" } }),
   ],
+  server: { port: 5173, strictPort: true },`,
    files: ["vite.config.ts"]
  },
  {
    key: "deps-err-module-not-found",
    kind: "error",
    toolName: "Bash",
    inputSummary: "node dist/server.js",
    content: `node:internal/modules/esm/resolve:275
    throw new ERR_MODULE_NOT_FOUND(
          ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/work/shop/dist/config/env' imported from /work/shop/dist/server.js
Did you mean to import "./config/env.js"?
    at finalizeResolution (node:internal/modules/esm/resolve:275:11) {
  code: 'ERR_MODULE_NOT_FOUND',
  url: 'file:///work/shop/dist/config/env'
}`,
    files: ["dist/server.js", "src/server.ts"],
    errorMessage: "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/work/shop/dist/config/env'"
  },
  {
    key: "deps-audit",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "npm audit --omit=dev",
    content: `# npm audit report

cookie  <0.7.0
cookie accepts cookie name, path, and domain with out of bounds characters - `
      + `https://github.com/advisories/GHSA-pxg6-pf52-xh8x
fix available via \`npm audit fix\`
node_modules/cookie
  express  4.0.0-rc1 - 4.21.0
  Depends on vulnerable versions of cookie

2 low severity vulnerabilities`
  },
  {
    key: "deps-lint-clean-new",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npm run lint",
    content: LINT_CLEAN
  },
  {
    key: "deps-lockfile-conflict",
    kind: "error",
    toolName: "Bash",
    inputSummary: "git merge origin/main",
    content: `Auto-merging package.json
CONFLICT (content): Merge conflict in package-lock.json
Automatic merge failed; fix conflicts and then commit the result.`,
    files: ["package-lock.json", "package.json"],
    errorMessage: "CONFLICT (content): Merge conflict in package-lock.json"
  }
])

const release = session("sess-shop-release-01", SHOP, 1, [
  {
    key: "release-git-status-new",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "git status",
    content: GIT_STATUS_CLEAN
  },
  {
    key: "release-changelog",
    kind: "tool_use",
    toolName: "Write",
    inputSummary: "CHANGELOG.md",
    content: `## 1.5.0

- Orders list no longer issues one query per order (1.8 s -> 90 ms)
- Sessions are stored in Redis and refreshed automatically
- Vite 6; product search understands Korean (nori)`,
    files: ["CHANGELOG.md"]
  },
  {
    key: "release-tag",
    kind: "success",
    toolName: "Bash",
    inputSummary: "git tag -a v1.5.0 -m 'v1.5.0' && git push origin v1.5.0",
    content: `Enumerating objects: 1, done.
Writing objects: 100% (1/1), 163 bytes | 163.00 KiB/s, done.
To github.com:acme/shop.git
 * [new tag]         v1.5.0 -> v1.5.0`
  },
  {
    key: "release-docker-oom",
    kind: "error",
    toolName: "Bash",
    inputSummary: "docker compose -f compose.prod.yml ps -a",
    content: `NAME            IMAGE                 COMMAND                  SERVICE   STATUS
shop-api-1      shop/api:1.5.0        "docker-entrypoint.s…"   api       Exited (137) 2 minutes ago
shop-nginx-1    nginx:1.27            "/docker-entrypoint.…"   nginx     Up 10 minutes
$ docker inspect shop-api-1 --format '{{.State.OOMKilled}} {{.State.ExitCode}}'
true 137`,
    files: ["compose.prod.yml"],
    errorMessage: "shop-api-1 exited with code 137 (OOMKilled)"
  },
  {
    key: "release-nginx-502",
    kind: "error",
    toolName: "Bash",
    inputSummary: "curl -i https://shop.example.com/api/health",
    content: `HTTP/2 502
server: nginx/1.27.2
content-type: text/html

<html><head><title>502 Bad Gateway</title></head>
nginx error.log: upstream prematurely closed connection while reading response header from upstream, upstream: `
      + `"http://172.18.0.5:3000/api/health"`,
    errorMessage: "HTTP/2 502 Bad Gateway"
  },
  {
    key: "release-deploy-fail-ko",
    kind: "note",
    content:
      "배포 실패 원인: api 컨테이너가 메모리 제한 512m 에서 OOMKilled. 1g 로 올리고 NODE_OPTIONS=--max-old-space-size=768 지정.",
    files: ["compose.prod.yml"]
  },
  {
    key: "release-compose-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "compose.prod.yml",
    content: `   api:
     image: shop/api:1.5.0
-    mem_limit: 512m
+    mem_limit: 1g
+    environment:
+      NODE_OPTIONS: --max-old-space-size=768`,
    files: ["compose.prod.yml"],
    daysAgo: 0
  },
  {
    key: "release-health-ok",
    kind: "success",
    toolName: "Bash",
    inputSummary: "curl -s https://shop.example.com/api/health",
    content: `{"status":"ok","version":"1.5.0","db":"up","redis":"up","uptime":42}`,
    daysAgo: 0
  },
  {
    key: "release-deploy-ok-ko",
    kind: "note",
    content: "v1.5.0 배포 완료. 헬스체크 통과, 에러율 0.1% 미만. 롤백 필요 없음.",
    daysAgo: 0
  }
])

// ---------------------------------------------------------------------------------------------------
// /work/other: strong, often newer duplicates of what the queries look for. Never a valid hit.
// ---------------------------------------------------------------------------------------------------

const otherBlog = session("sess-other-blog-01", OTHER, 8, [
  {
    key: "other-token-expired",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/admin",
    content: ` FAIL  src/admin/auth.test.ts > admin login > token expired
TokenExpiredError: jwt expired
TokenExpiredError: jwt expired
 ❯ verifyAdmin src/admin/auth.ts:12:9`,
    files: ["src/admin/auth.ts"],
    errorMessage: "TokenExpiredError: jwt expired"
  },
  {
    key: "other-econnrefused",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run migrate:up",
    content: "Error: connect ECONNREFUSED 127.0.0.1:5432\n  code: 'ECONNREFUSED', port: 5432",
    errorMessage: "connect ECONNREFUSED 127.0.0.1:5432"
  },
  {
    key: "other-ts2322",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx tsc --noEmit",
    content: "src/posts.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'. TS2322",
    files: ["src/posts.ts"],
    errorMessage: "error TS2322"
  },
  {
    key: "other-snake-case",
    kind: "note",
    content: "snake_case vs camelCase: the blog API uses snake_case, keep case conversion in one place (case.ts)."
  },
  {
    key: "other-redis-timeout",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run worker",
    content: "redis timeout: Command timed out (redis commandTimeout 500ms)",
    errorMessage: "redis timeout"
  },
  {
    key: "other-key-warning",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm test",
    content: "Warning: Each child in a list should have a unique \"key\" prop. Check the render method of `PostList`. "
      + "react key prop warning list",
    errorMessage: "react key prop warning"
  },
  {
    key: "other-unterminated",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run build",
    content: "SyntaxError: Unterminated string constant (12:18) unterminated",
    errorMessage: "SyntaxError: Unterminated string constant"
  },
  {
    key: "other-cargo-toml",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "Cargo.toml",
    content: "Cargo.toml: serde = { version = \"1\", features = [\"derive\"] }",
    files: ["Cargo.toml"]
  },
  {
    key: "other-peer-vite",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm install",
    content: "npm ERR! code ERESOLVE peer dependency conflict: peer vite@^5 from vite-plugin-pwa",
    errorMessage: "ERESOLVE peer dependency vite"
  },
  {
    key: "other-format-price",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/lib/formatPrice.ts",
    content: "formatPrice formatPrice formatPriceRange",
    files: ["src/lib/formatPrice.ts"]
  }
])

const otherShop = session("sess-other-blog-02", OTHER, 0, [
  {
    key: "other-login-token-expired-ko",
    kind: "note",
    content:
      "로그인할 때 TokenExpiredError 발생. 만료된 access token 을 verify 가 그대로 throw 해서 전역 에러 핸들러가 500 을 돌려준다. 401 로 바꿔야 "
      + "프론트가 refresh 를 시도함."
  },
  {
    key: "other-payment-timeout-ko",
    kind: "note",
    content: "결제 모듈에서 타임아웃: 토스페이먼츠 결제 승인 API 응답 지연. 결제 타임아웃 10초."
  },
  {
    key: "other-auth-ko",
    kind: "note",
    content: "인증을 위한 미들웨어 추가. 인증에서 세션 만료 처리. 인증 인증 인증."
  },
  {
    key: "other-lint-clean",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npm run lint",
    content: LINT_CLEAN
  },
  {
    key: "other-git-status",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "git status",
    content: GIT_STATUS_CLEAN
  },
  {
    key: "other-exit-137",
    kind: "error",
    toolName: "Bash",
    inputSummary: "docker compose ps",
    content: "blog-web-1 exited with code 137 (OOMKilled) exit code 137",
    errorMessage: "exit code 137"
  },
  {
    key: "other-502",
    kind: "error",
    toolName: "Bash",
    inputSummary: "curl -i https://blog.example.com",
    content: "HTTP/1.1 502 Bad Gateway\n<title>502 Bad Gateway</title> http 502 bad gateway",
    errorMessage: "502 Bad Gateway"
  },
  {
    key: "other-cart-ko",
    kind: "note",
    content: "장바구니 총액 장바구니 총액 — 블로그 굿즈 샵 장바구니 총액 계산 오류"
  },
  {
    key: "other-useeffect-ko",
    kind: "note",
    content: "useEffect 무한 루프 useEffect 무한 루프 (PostEditor)"
  },
  {
    key: "other-calculate-tax",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/tax.ts",
    content: "calculateTax(calculateTax(price))",
    files: ["src/tax.ts"]
  },
  {
    key: "other-migrate-latest",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npm run migrate:latest",
    content: "> blog@2.0.0 migrate:latest\n> knex migrate:latest\nAlready up to date"
  }
])

const notifications = session("sess-shop-notif-01", SHOP, 58, [
  {
    key: "notif-bullmq-write",
    kind: "tool_use",
    toolName: "Write",
    inputSummary: "src/jobs/send-email.job.ts",
    content: `export const emailQueue = new Queue<EmailJob>("emails", { connection: redis })

export const emailWorker = new Worker<EmailJob>("emails", async (job) => {
  await mailer.send(job.data.template, job.data.to, job.data.vars)
}, { connection: redis, concurrency: 5 })`,
    files: ["src/jobs/send-email.job.ts"]
  },
  {
    key: "notif-queue-ko",
    kind: "note",
    content:
      "주문 확인 메일 발송을 큐로 분리: API 응답에서 SMTP 대기 시간을 없앰. 실패하면 지수 백오프로 3번까지 재시도.",
    files: ["src/jobs/send-email.job.ts"]
  },
  {
    key: "notif-etimedout",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run worker",
    content: `[emails] job 1842 completed in 812ms
[emails] job 1843 failed (attempt 1/3): Error: connect ETIMEDOUT 142.250.157.108:587
    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1611:16) {
  errno: -110,
  code: 'ETIMEDOUT',
  syscall: 'connect'
}`,
    files: ["src/jobs/send-email.job.ts"],
    errorMessage: "connect ETIMEDOUT 142.250.157.108:587"
  },
  {
    key: "notif-mailer-undefined",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/services/mailer.test.ts",
    content: ` FAIL  src/services/mailer.test.ts > sendOrderConfirmation > renders the order number
TypeError: Cannot read properties of undefined (reading 'sendMail')
 ❯ sendOrderConfirmation src/services/mailer.ts:14:22
 ❯ src/services/mailer.test.ts:19:11`,
    files: ["src/services/mailer.ts", "src/services/mailer.test.ts"],
    errorMessage: "TypeError: Cannot read properties of undefined (reading 'sendMail')"
  },
  {
    key: "notif-mock-fix",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/services/mailer.test.ts",
    content: `+vi.mock("nodemailer", () => ({
+  default: { createTransport: () => ({ sendMail: vi.fn().mockResolvedValue({ messageId: "m1" }) }) }
+}))`,
    files: ["src/services/mailer.test.ts"]
  },
  {
    key: "notif-pass",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npx vitest run src/services/mailer.test.ts",
    content: ` ✓ src/services/mailer.test.ts (4 tests) 22ms

 Test Files  1 passed (1)
      Tests  4 passed (4)`
  },
  {
    key: "notif-template-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "templates/order-confirmation.mjml",
    content: `-      <mj-text>주문번호 {{orderNumber}}</mj-text>
+      <mj-text font-size="18px">주문번호 {{orderNumber}} · {{formattedTotal}}</mj-text>`,
    files: ["templates/order-confirmation.mjml"]
  },
  {
    key: "notif-unsubscribe-ko",
    kind: "note",
    content:
      "수신 거부 링크에 서명된 토큰을 붙임 (HMAC-SHA256, 30일 유효). 토큰 없이 들어오면 로그인 후 설정 화면으로.",
    files: ["src/services/unsubscribe.service.ts"]
  },
  {
    key: "notif-failed-jobs",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "npx bullmq-cli failed emails --limit 5",
    content: `emails:failed  4 jobs
  1843  attempts 3/3  Error: connect ETIMEDOUT 142.250.157.108:587
  1851  attempts 3/3  Error: Message rejected: recipient address invalid
  1852  attempts 3/3  Error: Message rejected: recipient address invalid
  1860  attempts 3/3  Error: Greeting never received`
  },
  {
    key: "notif-git-log",
    kind: "tool_use",
    toolName: "Bash",
    inputSummary: "git log --oneline -5",
    content: `9a41c07 (HEAD -> feat/email-queue) feat(notify): send order confirmations from a BullMQ worker
51e2f9b test(mailer): mock nodemailer transport
0c7d3aa chore: add mjml templates
e81b6f2 (origin/main, main) fix(cart): keep quantities on reload
3d09a15 feat(cart): persisted cart store`
  },
  {
    key: "notif-retry-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/jobs/send-email.job.ts",
    content: `-await emailQueue.add("order-confirmation", data)
+await emailQueue.add("order-confirmation", data, { attempts: 3, backoff: { type: "exponential", delay: 5_000 }, `
      + `removeOnComplete: 1000 })`,
    files: ["src/jobs/send-email.job.ts"]
  }
])

const i18n = session("sess-shop-i18n-01", SHOP, 52, [
  {
    key: "i18n-missing-key",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npm run dev:web",
    content: `i18next::translator: missingKey ko translation checkout.summary.total checkout.summary.total
i18next::translator: missingKey ko translation checkout.summary.shipping checkout.summary.shipping`,
    files: ["src/web/i18n/ko.json"],
    errorMessage: "i18next missingKey ko translation checkout.summary.total"
  },
  {
    key: "i18n-split-ko",
    kind: "note",
    content:
      "다국어 처리: 결제 화면 문구를 ko.json / en.json 으로 분리. 누락된 키는 영어로 fallback 하고 개발 모드에서만 경고.",
    files: ["src/web/i18n/ko.json", "src/web/i18n/en.json"]
  },
  {
    key: "i18n-grep-t",
    kind: "tool_use",
    toolName: "Grep",
    inputSummary: "t\\(\"checkout\\.",
    content: `src/web/pages/checkout.tsx:11:      <h1>{t("checkout.title")}</h1>
src/web/components/CheckoutForm.tsx:30:        {t("checkout.summary.total")}
src/web/components/CheckoutForm.tsx:31:        {t("checkout.summary.shipping")}`,
    files: ["src/web/pages/checkout.tsx", "src/web/components/CheckoutForm.tsx"]
  },
  {
    key: "i18n-timezone-fail",
    kind: "error",
    toolName: "Bash",
    inputSummary: "npx vitest run src/web/lib/formatDate.test.ts",
    content: ` FAIL  src/web/lib/formatDate.test.ts > formatOrderDate > shows the Korean calendar day
AssertionError: expected '2026. 9. 29.' to be '2026. 9. 30.' // Object.is equality
 ❯ src/web/lib/formatDate.test.ts:9:44`,
    files: ["src/web/lib/formatDate.test.ts"],
    errorMessage: "AssertionError: expected '2026. 9. 29.' to be '2026. 9. 30.'"
  },
  {
    key: "i18n-timezone-ko",
    kind: "note",
    content:
      "주문일이 하루 밀려 보이는 버그: CI 서버는 UTC 인데 화면은 KST 기준이어야 함. toLocaleDateString 에 timeZone 'Asia/Seoul' 지정.",
    files: ["src/web/lib/formatDate.ts"]
  },
  {
    key: "i18n-date-edit",
    kind: "tool_use",
    toolName: "Edit",
    inputSummary: "src/web/lib/formatDate.ts",
    content: `-  return new Date(iso).toLocaleDateString("ko-KR")
+  return new Date(iso).toLocaleDateString("ko-KR", { timeZone: "Asia/Seoul" })`,
    files: ["src/web/lib/formatDate.ts"]
  },
  {
    key: "i18n-pass",
    kind: "success",
    toolName: "Bash",
    inputSummary: "npx vitest run src/web/lib",
    content: ` ✓ src/web/lib/formatDate.test.ts (3 tests) 9ms
 ✓ src/web/lib/formatPrice.test.ts (4 tests) 5ms

 Test Files  2 passed (2)
      Tests  7 passed (7)`
  },
  {
    key: "i18n-read-ko-json",
    kind: "tool_use",
    toolName: "Read",
    inputSummary: "src/web/i18n/ko.json",
    content: `{
  "checkout": {
    "title": "주문/결제",
    "pay": "결제하기",
    "summary": { "total": "총 결제금액", "shipping": "배송비" }
  }
}`,
    files: ["src/web/i18n/ko.json"]
  }
])

/** Oldest session first, the order the log would have recorded them in. */
export const sessions: ReadonlyArray<FixtureSession> = [
  notifications,
  i18n,
  auth,
  payments,
  database,
  cart,
  strict,
  thumbs,
  ci,
  payments2,
  searchSession,
  otherBlog,
  authSession,
  perf,
  deps,
  release,
  otherShop
]

export const allObservations: ReadonlyArray<
  FixtureObservation & { readonly sessionId: string; readonly projectPath: string }
> = sessions.flatMap(
  (s) => s.observations.map((o) => ({ ...o, sessionId: s.sessionId, projectPath: s.projectPath }))
)
