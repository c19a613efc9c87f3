/**
 * V8 flags for the processes that hold live calls: the `runner` role, and `start` (every role in
 * one process). Given wherever such a process is launched: `npm start`, the image's entrypoint (every
 * role of `docker-compose.yml`), and the runners of `npm run cluster:local`.
 *
 * `--max-semi-space-size=32` (MB; Node 20's default is 16): a live call allocates short-lived objects
 * all the time (its 20 ms frames, its fibers' steps), and V8 copies whatever is still alive at each
 * young-generation collection, promoting what survives two. Twice the room means half as many
 * collections (8 → 4 a second), each catching fewer objects still alive. With 100 conversations in
 * one process (the voice bench's level, two runs each way beside each other, a scratch profile of
 * 20 s; `docs/voice.md` "Performance" has the bench's own figures): time in garbage collection
 * 38–46 → 24–27 ms a second, promoted 6.2–7.1 → 5.0 MB a second, outbound frame lateness p99
 * 7.8–12.3 → 7.4–8.3 ms, peak RSS 148–178 → 166–172 MB; 64 MB gained little more (20–25 ms a second)
 * for about 55 MB more RSS and no shorter pauses. The space grows only as it is used, so an idle or
 * HTTP-only process pays nothing for it.
 */
export const RUNNER_NODE_FLAGS: ReadonlyArray<string> = ["--max-semi-space-size=32"]
