/**
 * Whether a process still runs, for files named after the process that writes them (a new database, a backup
 * copy): one left by a process that died is removed, one still being written is not.
 */
export const isProcessRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user (a pid reused since, perhaps): not ours to judge.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}
