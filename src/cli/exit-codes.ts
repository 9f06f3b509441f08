// The exit codes of every `count-centre` command, said once: USAGE and docs/configuration.md describe them.

export const EXIT = {
  ok: 0,
  /** A resource could not be loaded: it is not served, or still serves its previous data. */
  resourceFailed: 1,
  /** The command line is wrong: an unknown command or option, a missing argument. */
  usage: 2,
  /** The input cannot be read or understood: a file (with its line and column), the catalogue, a setting. */
  badInput: 3,
  /** The CKAN portal could not be reached, refused, or did not answer as CKAN does. */
  portal: 4,
} as const;
