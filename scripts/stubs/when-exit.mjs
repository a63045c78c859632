// Stand-in for when-exit inside the bundle. atomically (under conf) uses it to delete its temp
// files on exit, and to do so it takes over SIGINT/SIGTERM at load and re-kills the process:
// that would cut short `schedctl sandbox`'s clean shutdown (state flush) once conf is loaded.
// conf writes synchronously (temp file + rename), so a stray temp file needs a kill inside
// that one write; the sandbox's own signal handling matters more.
export default function whenExit() {
  return () => undefined;
}
