const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '']);

/** A bind address that means "every interface" (as configured, or as a URL's hostname writes it): no one host reaches it. */
export const isWildcardHost = (host: string): boolean => WILDCARD_HOSTS.has(host);
