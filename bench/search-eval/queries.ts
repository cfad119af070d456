/**
 * The evaluation's queries, written as a user would type them (a prompt, or a `search`), each with the memory
 * (corpus.ts) it should find. Written before the engine was tuned on them, and not changed to suit it.
 *   direct:     the memory's own words (what the ranking tests check, now under months of later work)
 *   paraphrase: English in other words than the English memory's
 *   ko-en:      Korean about a memory recorded in English
 *   en-ko:      English about a note written in Korean
 *   error-code: an error code or signal for a memory that names it otherwise, or words for one that names a code
 */

export type EvalGroup = "direct" | "paraphrase" | "ko-en" | "en-ko" | "error-code"

export interface EvalQuery {
  readonly group: EvalGroup
  readonly query: string
  /** The key of the memory it should find (corpus.ts). */
  readonly expect: string
}

const group = (name: EvalGroup, pairs: ReadonlyArray<readonly [query: string, expect: string]>): Array<EvalQuery> =>
  pairs.map(([query, expect]) => ({ group: name, query, expect }))

export const evalQueries: ReadonlyArray<EvalQuery> = [
  ...group("direct", [
    ["port is already allocated", "port-allocated"],
    ["too many clients already", "pg-too-many-clients"],
    ["deadlock detected", "pg-deadlock"],
    ["push rejected non-fast-forward", "push-non-fast-forward"],
    ["Merge conflict in src/api/orders.ts", "merge-conflict-orders"],
    ["blocked by CORS policy Access-Control-Allow-Origin", "cors-blocked"],
    ["Exceeded timeout of 5000 ms for a test", "jest-timeout"],
    ["upstream prematurely closed connection", "nginx-502"],
    ["duplicate key users_email_key", "pg-unique-email"],
    ["Cannot find module @/lib/config", "vitest-paths"],
    ["unable to verify the first certificate", "tls-first-certificate"],
    ["JavaScript heap out of memory", "heap-oom-build"],
    ["웹소켓 proxy_read_timeout", "websocket-timeout-ko"],
    ["도커 레이어 캐시", "docker-cache-ko"],
    ["헬름 롤백 replicaCount 오타", "helm-replicas-ko"],
    ["token expired 401", "jwt-expired-401"]
  ]),
  ...group("paraphrase", [
    ["docker could not bind the postgres port because another process holds it", "port-allocated"],
    ["dev server won't start because something is already listening on 3000", "eaddrinuse-3000"],
    ["can't connect to redis on localhost in tests", "redis-econnrefused"],
    ["login session expires and the api answers unauthorized", "jwt-expired-401"],
    ["postgres ran out of connections during integration tests", "pg-too-many-clients"],
    ["two transactions blocking each other in the settle job", "pg-deadlock"],
    ["browser refuses the frontend's requests to the api from another origin", "cors-blocked"],
    ["nginx rejects a large file upload", "nginx-413"],
    ["github api throttling our issue sync", "github-429"],
    ["container killed for using too much memory", "oomkilled-worker"],
    ["cannot write the access log file, not allowed", "eacces-log"],
    ["disk full while installing packages", "enospc-npm"],
    ["the payments hostname does not resolve", "dns-enotfound"],
    ["kubernetes cannot download the api image from our registry", "imagepullbackoff"],
    ["thumbnail job crashes in native code on alpine", "segfault-sharp"],
    ["file watcher hits the open file limit", "emfile-watch"]
  ]),
  ...group("ko-en", [
    ["포트 충돌", "port-allocated"],
    ["깃 푸시 거절", "push-non-fast-forward"],
    ["디스크 공간 부족", "enospc-npm"],
    ["로그 파일 권한 거부", "eacces-log"],
    ["레디스 연결 거부", "redis-econnrefused"],
    ["메모리 부족으로 워커 컨테이너가 죽음", "oomkilled-worker"],
    ["파드가 계속 재시작됨", "crashloop-api"],
    ["토큰 만료돼서 인증 실패", "jwt-expired-401"],
    ["데이터베이스 연결이 너무 많음", "pg-too-many-clients"],
    ["교착 상태 정산 작업", "pg-deadlock"],
    ["병합 충돌 주문", "merge-conflict-orders"],
    ["인증서 검증 실패 웹훅", "tls-first-certificate"],
    ["업로드 파일 크기 제한 엔진엑스", "nginx-413"],
    ["테스트 시간 초과 내보내기", "jest-timeout"],
    ["이미지 변환 작업 세그폴트", "segfault-sharp"],
    ["도메인 이름을 찾을 수 없음 결제 서버", "dns-enotfound"]
  ]),
  ...group("en-ko", [
    ["websocket disconnects every 30 seconds", "websocket-timeout-ko"],
    ["flaky payment test near midnight", "flaky-payment-test-ko"],
    ["docker build starts from scratch every time", "docker-cache-ko"],
    ["redis connection keeps dropping when idle", "redis-idle-ko"],
    ["worker memory leak from event listeners", "memory-leak-ko"],
    ["login fails on subdomains after deploy, cookie domain", "cookie-domain-ko"],
    ["permission problem writing to the upload folder in the container", "upload-permission-ko"],
    ["speed up the ci build with a dependency cache", "ci-cache-ko"],
    ["ci build failed because the submodule was not updated", "submodule-ko"],
    ["order dates shown a day off because of the timezone", "timezone-order-date-ko"],
    ["map api rate limit exceeded, retry with exponential backoff", "maps-rate-limit-ko"],
    ["settlement cron runs at the wrong hour", "cron-utc-ko"],
    ["users still get the old javascript bundle after a deploy", "cdn-stale-ko"],
    ["load balancer keeps replacing instances health check", "healthcheck-ko"],
    ["orders list query slow, missing index", "slow-orders-query-ko"],
    ["migration stuck on a table lock during deploy", "migration-lock-ko"],
    ["lost commits after rebase detached head", "rebase-detached-ko"],
    ["pod stuck pending not enough cpu", "pod-pending-ko"]
  ]),
  ...group("error-code", [
    ["exit code 137", "oomkilled-worker"],
    ["OOMKilled", "oomkilled-worker"],
    ["SIGSEGV thumbnails", "segfault-sharp"],
    ["EADDRINUSE", "eaddrinuse-3000"],
    ["ECONNREFUSED 6379", "redis-econnrefused"],
    ["ENOSPC", "enospc-npm"],
    ["HTTP 429 github", "github-429"],
    ["403 putobject deploy", "s3-access-denied"],
    ["404 invoices v2", "invoices-404"],
    ["503 staging health", "envoy-503"],
    ["EACCES uploads container", "upload-permission-ko"],
    ["CrashLoopBackOff staging", "crashloop-api"],
    ["SQLITE_BUSY offline queue", "sqlite-locked"],
    ["ETIMEDOUT s3", "upload-etimedout"],
    ["413 업로드", "nginx-413"],
    ["502 배포 중", "nginx-502"],
    ["TS2345 invoices", "ts2345-undefined"],
    ["40P01", "pg-deadlock"]
  ])
]
