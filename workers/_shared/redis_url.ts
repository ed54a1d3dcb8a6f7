/**
 * The Redis URL of a store's `url` field, checked before anything connects:
 * `redis://[user:password@]host[:port][/db][?parameters]`, or `rediss://`
 * for TLS. ioredis turns every query parameter into a connection option, as
 * text and ahead of the worker's own options, so only the parameters in
 * {@link URL_PARAMETERS} are taken; anything else (a typo, an option that
 * would override the worker's time-outs) is refused, naming it.
 *
 * @module
 */

/**
 * The query parameters a Redis URL may have, each with what it means:
 * `db`, the database number (as the path `/db` gives it), and `family`,
 * `4` or `6` to connect over IPv4 or IPv6 only.
 */
export const URL_PARAMETERS: Readonly<Record<string, string>> = {
  db: 'the database number, as "/0" after the host gives it',
  family: "4 or 6, to connect over IPv4 or IPv6 only",
};

/**
 * What is wrong with the parsable Redis URL `url`, phrased to follow the
 * field's name (`must …`), or `undefined` when nothing is.
 */
export function redisUrlProblem(url: string): string | undefined {
  const parsed = new URL(url);
  for (const [name, value] of parsed.searchParams) {
    if (!Object.hasOwn(URL_PARAMETERS, name)) {
      return `must not have the parameter ${JSON.stringify(name)}: a Redis URL takes only ${
        Object.keys(URL_PARAMETERS).map((known) => `"${known}" (${URL_PARAMETERS[known]})`)
          .join(" and ")
      }`;
    }
    if (name === "family" && value !== "4" && value !== "6") {
      return `must give the parameter "family" as 4 or 6, not ${JSON.stringify(value)}`;
    }
  }
  const db = redisDatabaseText(url);
  if (db !== "" && !/^\d{1,9}$/.test(db)) {
    return `must name the database after the host as a number ("redis://host:6379/0"), not ${
      JSON.stringify(db)
    }`;
  }
  return undefined;
}

/**
 * The database number `url` names (its path, or its `db` parameter, which
 * ioredis reads too); 0 when none. Throws when the URL does not parse or
 * {@link redisUrlProblem} finds something wrong with it: ioredis would send
 * `SELECT NaN` for a database that is not a number, and take an unknown
 * parameter as an option.
 */
export function redisDatabase(url: string): number {
  if (!URL.canParse(url)) throw new Error(`Invalid Redis URL ${redactUrl(url)}: it is not a URL`);
  const problem = redisUrlProblem(url);
  if (problem !== undefined) {
    throw new Error(`Invalid Redis URL ${redactUrl(url)}: it ${problem}`);
  }
  const given = redisDatabaseText(url);
  return given === "" ? 0 : Number(given);
}

/** The database a parsable `url` names, as written (`""` for none): see {@link redisDatabase}. */
export function redisDatabaseText(url: string): string {
  const parsed = new URL(url);
  return parsed.searchParams.get("db") ?? parsed.pathname.slice(1);
}

/** Whether `url` asks for TLS (`rediss://`). */
export function wantsTls(url: string): boolean {
  return /^rediss:\/\//i.test(url);
}

/** The URL with any password replaced by `***`, fit for logs and errors. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}
