export async function run(_argv: string[]): Promise<number> { return 2; }
