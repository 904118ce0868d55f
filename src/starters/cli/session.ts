/**
 * The Temporal connection of one CLI command: opened on first use (so `validate` and
 * usage errors never connect), from the command's --address / --namespace /
 * --temporal-profile or the standard environment, and closed when the command ends.
 */
import type { Client } from '@temporalio/client';
import { connectClient, type ConnectedClient } from '../client/connect';
import type { CommandContext } from './output';

export class Session {
  private connected?: ConnectedClient;
  constructor(private readonly ctx: CommandContext) {}

  async client(): Promise<Client> {
    if (!this.connected) {
      const { env } = this.ctx.io;
      this.connected = await connectClient({
        env,
        ...(this.ctx.str('address') ? { address: this.ctx.str('address') } : {}),
        ...(this.ctx.str('namespace') ? { namespace: this.ctx.str('namespace') } : {}),
        ...(this.ctx.str('temporal-profile') ? { profile: this.ctx.str('temporal-profile') } : {}),
      });
    }
    return this.connected.client;
  }

  get namespace(): string | undefined {
    return this.connected?.namespace;
  }

  async connection(): Promise<ConnectedClient['connection']> {
    await this.client();
    return this.connected!.connection;
  }

  async close(): Promise<void> {
    await this.connected?.close();
  }
}

/** One pipeline command (`run`, `status`, …): resolves with the exit code. */
export type CommandFn = (ctx: CommandContext, session: Session) => Promise<number>;
