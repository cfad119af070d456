/**
 * The evaluation corpus: memories of one project ("/work/app": a Node/TypeScript API with Postgres and Redis,
 * a React front end, workers on Kubernetes) as the hooks would record them over four months: tool output in
 * English (errors, stack traces, kubectl and git output), commit messages, and notes the user wrote in
 * Korean. Each memory has a key the queries (queries.ts) name. Distractors share words with the memories
 * the queries want (a successful push next to a rejected one, a 401 that a test expects, another Redis
 * error), so a query has to find the right one, not any one.
 */

export type MemoryKind = "tool_use" | "error" | "success" | "note"

export interface EvalMemory {
  readonly key: string
  readonly kind: MemoryKind
  readonly toolName?: "Bash" | "Edit" | "Read" | "Write"
  readonly inputSummary?: string
  readonly content: string
  readonly files?: ReadonlyArray<string>
  readonly errorMessage?: string
  /** Days before the evaluation's NOW. */
  readonly daysAgo: number
}

export const EVAL_PROJECT = "/work/app"

const bash = (
  key: string,
  kind: MemoryKind,
  daysAgo: number,
  command: string,
  content: string,
  errorMessage?: string
): EvalMemory => ({
  key,
  kind,
  toolName: "Bash",
  inputSummary: command,
  content,
  daysAgo,
  ...(errorMessage === undefined ? {} : { errorMessage })
})

const note = (key: string, daysAgo: number, content: string): EvalMemory => ({ key, kind: "note", content, daysAgo })

const edit = (key: string, daysAgo: number, file: string, content: string): EvalMemory => ({
  key,
  kind: "tool_use",
  toolName: "Edit",
  inputSummary: file,
  content,
  files: [file],
  daysAgo
})

export const memories: ReadonlyArray<EvalMemory> = [
  // --- networking and ports --------------------------------------------------------------------------
  bash(
    "port-allocated",
    "error",
    118,
    "docker compose up -d",
    `[+] Running 2/3
 ✔ Network app_default      Created
 ✔ Container app-redis-1    Started
 ✘ Container app-db-1       Error
Error response from daemon: driver failed programming external connectivity on endpoint app-db-1 (6c1f0e2b):
Bind for 0.0.0.0:5432 failed: port is already allocated`,
    "Bind for 0.0.0.0:5432 failed: port is already allocated"
  ),
  bash(
    "compose-up-ok",
    "success",
    30,
    "docker compose up -d",
    `[+] Running 3/3
 ✔ Network app_default      Created
 ✔ Container app-redis-1    Started
 ✔ Container app-db-1       Started`
  ),
  bash(
    "eaddrinuse-3000",
    "error",
    96,
    "npm run dev",
    `> app@2.3.0 dev
> tsx watch src/server.ts

node:events:496
      throw er; // Unhandled 'error' event
      ^
Error: listen EADDRINUSE: address already in use :::3000
    at Server.setupListenHandle [as _listen2] (node:net:1939:16)
    at listenInCluster (node:net:1996:12)
    at Server.listen (node:net:2101:7)
    at startServer (src/server.ts:41:10)`,
    "listen EADDRINUSE: address already in use :::3000"
  ),
  bash(
    "redis-econnrefused",
    "error",
    110,
    "npm test -- src/cache",
    `FAIL src/cache/session-cache.test.ts
  ● session cache › stores the session for 30 minutes
    Error: connect ECONNREFUSED 127.0.0.1:6379
        at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16)
    [ioredis] Unhandled error event: Error: connect ECONNREFUSED 127.0.0.1:6379`,
    "connect ECONNREFUSED 127.0.0.1:6379"
  ),
  bash(
    "redis-wrongtype",
    "error",
    60,
    "npm test -- src/cache",
    `FAIL src/cache/rate-counter.test.ts
  ● rate counter › increments per user
    ReplyError: WRONGTYPE Operation against a key holding the wrong kind of value
      at parseError (node_modules/redis-parser/lib/parser.js:179:12)`,
    "WRONGTYPE Operation against a key holding the wrong kind of value"
  ),
  note(
    "websocket-timeout-ko",
    84,
    "웹소켓이 정확히 30초마다 끊기던 문제 원인: nginx 의 proxy_read_timeout 이 30s 로 잡혀 있었음."
      + " 서버가 아무것도 안 보내면 nginx 가 연결을 닫는다. proxy_read_timeout 을 3600s 로 올리고 클라이언트에서 25초마다 ping 보내도록 수정."
  ),
  bash(
    "dns-enotfound",
    "error",
    77,
    "npm run sync:payments",
    `Error: getaddrinfo ENOTFOUND payments.internal.example.com
    at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:120:26) {
  errno: -3008,
  code: 'ENOTFOUND',
  syscall: 'getaddrinfo',
  hostname: 'payments.internal.example.com'
}`,
    "getaddrinfo ENOTFOUND payments.internal.example.com"
  ),
  bash(
    "tls-first-certificate",
    "error",
    70,
    "node scripts/check-webhooks.ts",
    `FetchError: request to https://hooks.partner.example.com/v1/ping failed,`
      + ` reason: unable to verify the first certificate
    at ClientRequest.<anonymous> (node_modules/node-fetch/lib/index.js:1501:11) {
  type: 'system',
  errno: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
}
The partner's server sends its leaf certificate without the intermediate chain.`,
    "unable to verify the first certificate"
  ),
  bash(
    "cors-blocked",
    "error",
    65,
    "npx playwright test tests/e2e/checkout.spec.ts",
    `  1) [chromium] › checkout.spec.ts:22:5 › checkout › shows the order summary
    console error: Access to fetch at 'http://localhost:4000/api/orders' from origin 'http://localhost:5173'
    has been blocked by CORS policy: No 'Access-Control-Allow-Origin' header is present on the requested resource.`,
    "blocked by CORS policy"
  ),
  bash(
    "upload-etimedout",
    "error",
    52,
    "npm run jobs:thumbnails",
    `[thumbnails] uploading 184 images to s3://app-media/thumbs
Error: connect ETIMEDOUT 52.219.100.12:443
    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:16) {
  errno: -110, code: 'ETIMEDOUT', syscall: 'connect'
}
[thumbnails] 61 of 184 uploaded before the failure`,
    "connect ETIMEDOUT 52.219.100.12:443"
  ),

  // --- disk, permissions, memory, processes ------------------------------------------------------------
  bash(
    "enospc-npm",
    "error",
    101,
    "npm ci",
    `npm ERR! code ENOSPC
npm ERR! syscall write
npm ERR! errno -28
npm ERR! nospc ENOSPC: no space left on device, write
npm ERR! nospc There appears to be insufficient space on your system to finish.
npm ERR! nospc Clear up some disk space and try again.`,
    "ENOSPC: no space left on device, write"
  ),
  bash(
    "eacces-log",
    "error",
    93,
    "node dist/server.js",
    `Error: EACCES: permission denied, open '/var/log/app/access.log'
    at Object.openSync (node:fs:573:18)
    at createWriteStream (src/logging/file-sink.ts:12:20) {
  errno: -13, code: 'EACCES', syscall: 'open', path: '/var/log/app/access.log'
}`,
    "EACCES: permission denied, open '/var/log/app/access.log'"
  ),
  bash(
    "oomkilled-worker",
    "error",
    88,
    "kubectl describe pod worker-6f9c7d8b5-x2kq4",
    `Name:         worker-6f9c7d8b5-x2kq4
Namespace:    production
Containers:
  worker:
    State:          Running
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
    Restart Count:  4
    Limits:
      memory:  512Mi`
  ),
  bash(
    "crashloop-api",
    "error",
    74,
    "kubectl get pods -n staging",
    `NAME                       READY   STATUS             RESTARTS      AGE
api-7c5d9b6f4-8mhzp        0/1     CrashLoopBackOff   9 (2m ago)    24m
api-7c5d9b6f4-wq7ld        0/1     CrashLoopBackOff   9 (3m ago)    24m
scheduler-5b8f7c9d-k2j4n   1/1     Running            0             3d`
  ),
  bash(
    "crashloop-logs",
    "tool_use",
    74,
    "kubectl logs api-7c5d9b6f4-8mhzp -n staging --previous",
    `Error: Missing required environment variable: REDIS_URL
    at requireEnv (src/config.ts:8:11)
    at Object.<anonymous> (src/config.ts:21:20)`
  ),
  bash(
    "segfault-sharp",
    "error",
    58,
    "npm run jobs:thumbnails",
    `[thumbnails] resizing 220 images
/bin/sh: line 1:  4121 Segmentation fault      (core dumped) node dist/jobs/thumbnails.js
npm ERR! Lifecycle script \`jobs:thumbnails\` failed with error: code 139
Native libvips from sharp 0.33 built for glibc, image is alpine (musl).`,
    "Segmentation fault (core dumped)"
  ),
  bash(
    "heap-oom-build",
    "error",
    47,
    "npm run build",
    `<--- Last few GCs --->
[5132:0x6a8e000]    81234 ms: Mark-Compact 2040.1 (2083.5) -> 2039.6 (2084.2) MB, 1502.3 / 0.0 ms
FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory
 1: 0xb8d0a0 node::Abort() [node]`,
    "Reached heap limit Allocation failed - JavaScript heap out of memory"
  ),
  bash(
    "emfile-watch",
    "error",
    40,
    "npm run dev",
    `Error: EMFILE: too many open files, watch '/work/app/src'
    at FSWatcher.<computed> (node:internal/fs/watchers:247:19)
    at Object.watch (node:fs:2469:36)`,
    "EMFILE: too many open files, watch"
  ),

  // --- version control -----------------------------------------------------------------------------------
  bash(
    "push-non-fast-forward",
    "error",
    115,
    "git push origin main",
    `To github.com:acme/app.git
 ! [rejected]        main -> main (non-fast-forward)
error: failed to push some refs to 'github.com:acme/app.git'
hint: Updates were rejected because the tip of your current branch is behind
hint: its remote counterpart. Integrate the remote changes (e.g.
hint: 'git pull ...') before pushing again.`,
    "failed to push some refs"
  ),
  bash(
    "push-ok",
    "success",
    25,
    "git push origin feature/invoices",
    `To github.com:acme/app.git
 * [new branch]      feature/invoices -> feature/invoices`
  ),
  bash(
    "merge-conflict-orders",
    "error",
    80,
    "git merge origin/main",
    `Auto-merging src/api/orders.ts
CONFLICT (content): Merge conflict in src/api/orders.ts
Auto-merging src/api/invoices.ts
Automatic merge failed; fix conflicts and then commit the result.`,
    "Merge conflict in src/api/orders.ts"
  ),
  note(
    "rebase-detached-ko",
    66,
    "리베이스 도중 detached HEAD 상태가 되어서 커밋이 사라진 줄 알았음. git reflog 로 커밋 해시를 찾아 브랜치를 다시 만들었다. 앞으로는 rebase 전에 백업 브랜치를 만들 것."
  ),
  note(
    "submodule-ko",
    62,
    "CI 빌드 실패 원인: 서브모듈(design-tokens)을 갱신하지 않아서 예전 토큰 파일을 읽음. checkout 단계에 submodules: recursive 옵션 추가."
  ),
  bash(
    "commit-refresh-fix",
    "success",
    89,
    "git commit -m \"fix(auth): refresh the access token a minute before it expires\"",
    `[main 4e1a9c2] fix(auth): refresh the access token a minute before it expires
 2 files changed, 31 insertions(+), 4 deletions(-)`
  ),

  // --- auth and HTTP -------------------------------------------------------------------------------------
  bash(
    "jwt-expired-401",
    "error",
    105,
    "curl -i http://localhost:4000/api/me",
    `HTTP/1.1 401 Unauthorized
content-type: application/json

{"error":"TokenExpiredError","message":"jwt expired","expiredAt":"2026-07-30T09:12:44.000Z"}`,
    "401 Unauthorized: TokenExpiredError: jwt expired"
  ),
  bash(
    "auth-test-401-pass",
    "success",
    20,
    "npm test -- src/auth",
    ` ✓ src/auth/guard.test.ts (6 tests) 38ms
   ✓ rejects a request without a bearer token with 401
   ✓ accepts a valid token

 Test Files  1 passed (1)`
  ),
  bash(
    "s3-access-denied",
    "error",
    68,
    "aws s3 cp build/ s3://app-static-prod --recursive",
    `upload failed: build/index.html to s3://app-static-prod/index.html
An error occurred (AccessDenied) when calling the PutObject operation: Access Denied
The deploy role has s3:GetObject only; PutObject was never granted.`,
    "An error occurred (AccessDenied) when calling the PutObject operation"
  ),
  bash(
    "invoices-404",
    "error",
    55,
    "curl -i http://localhost:4000/api/v2/invoices",
    `HTTP/1.1 404 Not Found
content-type: text/html

Cannot GET /api/v2/invoices
(the invoices router is mounted under /api/v1 only)`,
    "404 Not Found: Cannot GET /api/v2/invoices"
  ),
  bash(
    "github-429",
    "error",
    44,
    "npm run sync:issues",
    `HttpError: API rate limit exceeded for installation ID 4412. (status 429)
    at fetchWrapper (node_modules/@octokit/request/dist-node/index.js:86:21)
  response headers: x-ratelimit-remaining: 0, retry-after: 60
Synced 312 of 1,240 issues before the limit.`,
    "API rate limit exceeded for installation (status 429)"
  ),
  bash(
    "nginx-502",
    "error",
    98,
    "tail -n 5 /var/log/nginx/error.log",
    `2026/08/14 03:12:07 [error] 31#31: *1843 upstream prematurely closed connection`
      + ` while reading response header from upstream,
client: 10.0.3.17, server: app.example.com, request: "POST /api/orders HTTP/1.1",
upstream: "http://10.0.5.21:4000/api/orders", host: "app.example.com"
The browser got 502 Bad Gateway while the API restarted during the deploy.`
  ),
  bash(
    "envoy-503",
    "error",
    50,
    "curl -i https://staging.example.com/api/health",
    `HTTP/2 503
server: envoy
content-length: 19

no healthy upstream`,
    "503 no healthy upstream"
  ),
  note(
    "csrf-cookie-ko",
    59,
    "폼 제출이 403 으로 거절되던 이유: CSRF 토큰 쿠키가 SameSite=Strict 라서 결제 리디렉션 후 돌아올 때 쿠키가 안 붙음. SameSite=Lax 로 변경."
  ),
  bash(
    "nginx-413",
    "error",
    72,
    "curl -F file=@video.mp4 https://app.example.com/api/uploads",
    `<html>
<head><title>413 Request Entity Too Large</title></head>
<body><center><h1>413 Request Entity Too Large</h1></center><hr><center>nginx</center></body>
</html>
nginx.conf has no client_max_body_size, so the default 1m applies.`,
    "413 Request Entity Too Large"
  ),

  // --- databases -----------------------------------------------------------------------------------------
  bash(
    "pg-too-many-clients",
    "error",
    108,
    "npm run test:integration",
    `error: sorry, too many clients already
    at Parser.parseErrorMessage (node_modules/pg-protocol/dist/parser.js:287:98)
  severity: 'FATAL', code: '53300'
Each test file creates its own Pool of 20 and never calls pool.end():`
      + ` 14 files, 280 connections, max_connections is 100.`,
    "sorry, too many clients already"
  ),
  bash(
    "pg-deadlock",
    "error",
    86,
    "npm run jobs:settle",
    `error: deadlock detected
  detail: 'Process 4121 waits for ShareLock on transaction 99812; blocked by process 4133.\\n' +
    'Process 4133 waits for ShareLock on transaction 99810; blocked by process 4121.',
  hint: 'See server log for query details.', code: '40P01'
  at settleInvoices (src/jobs/settle.ts:58:7)`,
    "deadlock detected"
  ),
  note(
    "migration-lock-ko",
    82,
    "배포 중 마이그레이션이 멈춘 원인: orders 테이블 컬럼 이름 변경이 ACCESS EXCLUSIVE 잠금을 잡고, 긴 분석 쿼리가 끝나기를 기다림."
      + " lock_timeout 5s 를 걸고 업무 시간 외에 다시 실행."
  ),
  bash(
    "pg-unique-email",
    "error",
    64,
    "npm test -- src/users",
    `FAIL src/users/signup.test.ts
  ● signup › rejects a second account with the same email
    error: duplicate key value violates unique constraint "users_email_key"
    detail: Key (email)=(a@example.com) already exists.`,
    "duplicate key value violates unique constraint \"users_email_key\""
  ),
  note(
    "slow-orders-query-ko",
    57,
    "주문 목록 API 가 느렸던 이유: orders 를 created_at 으로 정렬하는데 인덱스가 없어서 전체 스캔."
      + " (customer_id, created_at) 복합 인덱스 추가 후 1.2초 → 40ms."
  ),
  bash(
    "redis-maxmemory",
    "error",
    46,
    "redis-cli -h cache SET feed:4412 ...",
    `(error) OOM command not allowed when used memory > 'maxmemory'.
maxmemory 256mb, maxmemory-policy noeviction: keys without a TTL filled the cache.`,
    "OOM command not allowed when used memory > 'maxmemory'"
  ),
  bash(
    "sqlite-locked",
    "error",
    42,
    "npm test -- src/offline",
    `FAIL src/offline/queue.test.ts
  ● offline queue › flushes while the app writes
    SqliteError: database is locked
      at Database.prepare (node_modules/better-sqlite3/lib/methods/wrappers.js:5:21)
      at flush (src/offline/queue.ts:33:18)`,
    "SqliteError: database is locked"
  ),
  bash(
    "pool-ok",
    "success",
    33,
    "npm run test:integration",
    ` ✓ tests/integration/orders.test.ts (12 tests) 2.1s
 ✓ tests/integration/pool.test.ts (3 tests) 640ms

 Test Files  2 passed (2)`
  ),

  // --- builds, tests, dependencies -------------------------------------------------------------------------
  bash(
    "ts2345-undefined",
    "error",
    100,
    "npx tsc --noEmit",
    `src/api/invoices.ts:48:27 - error TS2345: Argument of type 'string | undefined'`
      + ` is not assignable to parameter of type 'string'.
  Type 'undefined' is not assignable to type 'string'.

48     const due = parseDate(req.query.due)
                             ~~~~~~~~~~~~~

Found 1 error in src/api/invoices.ts:48`,
    "TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'"
  ),
  bash(
    "vitest-paths",
    "error",
    91,
    "npx vitest run src/lib",
    `Error: Cannot find module '@/lib/config' imported from /work/app/src/lib/mailer.ts
 ❯ src/lib/mailer.ts:2:1
vitest does not read tsconfig "paths": the @ alias needs resolve.alias in vitest.config.ts.`,
    "Cannot find module '@/lib/config'"
  ),
  note(
    "flaky-payment-test-ko",
    79,
    "결제 테스트가 가끔 실패하는 이유: 타이머를 모킹하지 않아서 자정 근처에 실행하면 날짜가 바뀌어 만료일 계산이 하루 틀어짐. vi.useFakeTimers 로 시간 고정."
  ),
  bash(
    "snapshot-obsolete",
    "error",
    53,
    "npx vitest run src/web/components",
    ` FAIL  src/web/components/InvoiceTable.test.tsx > renders totals
Error: Snapshot \`renders totals 1\` mismatched
- Expected  "Total: $1,200.00"
+ Received  "Total: $1,200"

 Snapshots  1 failed`,
    "Snapshot `renders totals 1` mismatched"
  ),
  bash(
    "eresolve-react19",
    "error",
    69,
    "npm install react@19 react-dom@19",
    `npm ERR! code ERESOLVE
npm ERR! ERESOLVE unable to resolve dependency tree
npm ERR! Found: react@19.0.0
npm ERR! Could not resolve dependency:
npm ERR! peer react@"^16.8.0 || ^17.0.0 || ^18.0.0" from react-beautiful-dnd@13.1.1`,
    "ERESOLVE unable to resolve dependency tree"
  ),
  note(
    "docker-cache-ko",
    75,
    "도커 이미지 빌드가 매번 처음부터 다시 되던 이유: Dockerfile 에서 COPY . . 가 npm ci 보다 앞에 있어서 소스 한 줄만 바뀌어도 레이어 캐시가 깨짐."
      + " package.json 과 lock 파일만 먼저 복사하고 npm ci 후에 소스 복사."
  ),
  bash(
    "jest-timeout",
    "error",
    61,
    "npm test -- src/jobs",
    `FAIL src/jobs/export.test.ts (5.4 s)
  ● export job › writes the CSV for a month of invoices
    thrown: "Exceeded timeout of 5000 ms for a test.
    Add a timeout value to this test to increase the timeout, if this is a long-running test."`,
    "Exceeded timeout of 5000 ms for a test"
  ),
  note(
    "ci-cache-ko",
    37,
    "CI 빌드 시간 단축: node_modules 대신 npm 캐시 디렉터리를 actions/cache 로 저장하고 lock 파일 해시를 키로 사용. 8분 → 3분."
  ),
  bash(
    "eslint-hooks",
    "error",
    35,
    "npm run lint",
    `src/web/pages/Invoices.tsx
  31:6  warning  React Hook useEffect has a missing dependency: 'filters'.`
      + ` Either include it or remove the dependency array  react-hooks/exhaustive-deps

✖ 1 problem (0 errors, 1 warning)`
  ),

  // --- deployment and infrastructure -------------------------------------------------------------------------
  bash(
    "imagepullbackoff",
    "error",
    71,
    "kubectl describe pod api-5d6f8c7b9-pq2rt -n production",
    `Events:
  Warning  Failed     12s   kubelet  Failed to pull image "registry.example.com/app/api:2.3.1":`
      + ` rpc error: code = Unknown
           desc = failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized
  Warning  Failed     12s   kubelet  Error: ErrImagePull
  Normal   BackOff    1s    kubelet  Back-off pulling image "registry.example.com/app/api:2.3.1"
  Warning  Failed     1s    kubelet  Error: ImagePullBackOff`
  ),
  note(
    "helm-replicas-ko",
    67,
    "헬름 배포 롤백함: values-production.yaml 에서 replicaCount 를 replicasCount 로 오타 내서 기본값 1 로 배포됨."
      + " helm rollback api 41 로 되돌리고 helm lint 를 CI 에 추가."
  ),
  bash(
    "terraform-state-lock",
    "error",
    63,
    "terraform apply",
    `Error: Error acquiring the state lock

Error message: ConditionalCheckFailedException: The conditional request failed
Lock Info:
  ID:        5c2e1a4b-77f0-4a1e-9e55-0b5c8a2f9d10
  Path:      app-tfstate/prod/terraform.tfstate
  Operation: OperationTypeApply
  Who:       runner@ci-7`,
    "Error acquiring the state lock"
  ),
  note(
    "env-missing-ko",
    54,
    "프로덕션 서버가 시작하자마자 죽던 원인: .env.production 에 DATABASE_URL 이 빠져 있었음. 부팅할 때 필수 환경 변수를 한 번에 검사하도록 config.ts 수정."
  ),
  note(
    "cron-utc-ko",
    49,
    "정산 크론이 오전 9시에 돌던 이유: 서버 시간대가 UTC 라서 0 0 * * * 가 한국 시간 오전 9시. CRON_TZ=Asia/Seoul 설정."
  ),
  note(
    "cdn-stale-ko",
    45,
    "배포 후에도 사용자 브라우저에 예전 자바스크립트 번들이 뜨는 문제: CDN 이 index.html 을 하루 동안 캐시함. index.html 은 no-cache, 번들 파일 이름에는 콘텐츠 해시 추가."
  ),
  note(
    "healthcheck-ko",
    41,
    "로드밸런서가 인스턴스를 계속 교체하던 이유: 헬스체크 경로가 / 로 되어 있어서 로그인 페이지로 302 리다이렉트 → 비정상 판정. 헬스체크를 /healthz 로 변경."
  ),
  note(
    "pod-pending-ko",
    39,
    "스테이징 파드가 Pending 에서 안 넘어감: 노드의 CPU 요청량이 모자라서 스케줄링 불가. requests.cpu 를 500m → 200m 로 낮춤."
  ),

  // --- Korean notes about everyday problems ----------------------------------------------------------------
  note(
    "redis-idle-ko",
    83,
    "레디스 연결이 자꾸 끊기는 문제: 방화벽이 유휴 연결을 300초 후에 끊음. ioredis 에 keepAlive 30000 설정 추가하고 재연결 로그 확인."
  ),
  note(
    "memory-leak-ko",
    73,
    "워커 메모리가 계속 늘어나는 누수: 작업마다 이벤트 리스너를 등록하고 해제하지 않았음. once 로 바꾸고 작업 끝에 removeAllListeners 호출."
  ),
  note(
    "cookie-domain-ko",
    56,
    "배포 후 서브도메인에서 로그인이 안 됨: 세션 쿠키 도메인이 app.example.com 으로 고정돼 있었음. 쿠키 도메인을 .example.com 으로 변경."
  ),
  note(
    "upload-permission-ko",
    51,
    "업로드 폴더에 파일을 못 쓰는 권한 문제: 컨테이너가 node 사용자(uid 1000)로 도는데 볼륨 소유자가 root. 초기화 컨테이너에서 chown 1000:1000 실행."
  ),
  note(
    "timezone-order-date-ko",
    48,
    "주문 날짜가 하루씩 밀려 보이는 버그: 서버는 UTC 로 저장하는데 화면에서 날짜만 잘라 써서 자정 전후 주문이 전날로 표시됨. 표시할 때만 Asia/Seoul 로 변환."
  ),
  note(
    "maps-rate-limit-ko",
    43,
    "외부 지도 API 호출 한도 초과: 분당 60회 제한인데 배치가 동시에 보냄. 재시도에 지수 백오프와 지터를 넣고 동시 요청 수를 5 로 제한."
  ),
  note(
    "i18n-fallback-ko",
    36,
    "번역 키가 없을 때 화면에 키 이름이 그대로 보임: i18next 의 fallbackLng 설정이 빠져 있었음. fallbackLng: 'en' 추가."
  ),
  note(
    "search-debounce-ko",
    34,
    "검색창에 글자를 칠 때마다 API 를 호출해서 느려짐: 300ms 디바운스 적용하고 이전 요청은 AbortController 로 취소."
  ),

  // --- ordinary work that shares words with the memories above ----------------------------------------------
  edit(
    "edit-nginx-conf",
    97,
    "deploy/nginx.conf",
    `   location /api/ {
     proxy_pass http://api:4000;
+    proxy_set_header X-Request-Id $request_id;
   }`
  ),
  edit(
    "edit-pool-size",
    107,
    "src/db/pool.ts",
    `-export const pool = new Pool({ connectionString: env.DATABASE_URL })
+export const pool = new Pool({ connectionString: env.DATABASE_URL, max: 10, idleTimeoutMillis: 30_000 })`
  ),
  bash(
    "kubectl-rollout-ok",
    "success",
    31,
    "kubectl rollout status deploy/api -n production",
    `Waiting for deployment "api" rollout to finish: 2 of 3 updated replicas are available...
deployment "api" successfully rolled out`
  ),
  bash(
    "tests-pass-all",
    "success",
    28,
    "npm test",
    ` Test Files  48 passed (48)
      Tests  412 passed (412)
   Duration  21.4s`
  ),
  note(
    "decision-redis-sessions",
    90,
    "Sessions move from the in-memory store to Redis so that logins survive a restart of the API."
  ),
  note("convention-pnpm", 85, "Use pnpm in this repository, never npm install: the lock file is pnpm-lock.yaml."),
  bash(
    "docker-build-ok",
    "success",
    29,
    "docker build -t app/api:2.4.0 .",
    ` => [deps 3/3] RUN npm ci --omit=dev                      41.2s
 => [build 4/4] RUN npm run build                          18.7s
 => exporting to image                                       2.3s
 => => naming to docker.io/app/api:2.4.0`
  ),
  bash(
    "git-log",
    "tool_use",
    27,
    "git log --oneline -5",
    `9a1f3c2 feat(invoices): export a month as CSV
4e1a9c2 fix(auth): refresh the access token a minute before it expires
77c0b1d chore(deps): bump vite to 6.0.3
1d2e3f4 test(cache): cover the session TTL
0aa9b8c ci: cache the npm folder`
  )
]
