import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InProcessBus, InProcessServer } from '@burrow/transport';
import { type CanActivate, Controller, Module, type Type, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { of } from 'rxjs';
import { type BusHook, directHandlers } from './direct-handlers.js';

const toWire = (error: unknown) => ({ wire: (error as Error).message });

async function tableOf(controllers: Type[], hooks: BusHook[] = []) {
  @Module({ controllers })
  class TestModule {}
  const app = await NestFactory.createMicroservice(TestModule, {
    strategy: new InProcessServer(new InProcessBus(), 'test'),
    logger: false,
  });
  try {
    return directHandlers(app, controllers, hooks, toWire);
  } finally {
    await app.close();
  }
}

class Base {
  @MessagePattern('t.inherited')
  inherited(@Payload() data: { n: number }) {
    return { inherited: data.n };
  }
}

@Controller()
class Plain extends Base {
  constructor() {
    super();
  }
  readonly seen: unknown[] = [];

  @MessagePattern('t.echo')
  echo(@Payload() data: Record<string, unknown>) {
    this.seen.push(data);
    return { ...data, by: 'echo' };
  }

  @MessagePattern('t.none')
  none() {
    return 'no payload';
  }

  @MessagePattern('t.observable')
  observable() {
    return of(1, 2, 3);
  }

  @MessagePattern('t.fails')
  fails() {
    throw new Error('it failed');
  }

  @EventPattern('t.event')
  event(@Payload() _data: unknown) {}
}

describe('directHandlers: a service handlers as plain functions (the lean bus)', () => {
  it('calls each @MessagePattern method on its instance, inherited ones too; leaves event handlers to Nest', async () => {
    const table = await tableOf([Plain]);
    assert.deepEqual([...table.keys()].sort(), ['t.echo', 't.fails', 't.inherited', 't.none', 't.observable']);
    assert.deepEqual(await table.get('t.echo')!({ a: 1 }), { a: 1, by: 'echo' });
    assert.deepEqual(await table.get('t.inherited')!({ n: 4 }), { inherited: 4 });
    assert.equal(await table.get('t.none')!({ ignored: true }), 'no payload');
    // an Observable reply is its last value, as Nest's single reply is
    assert.equal(await table.get('t.observable')!({}), 3);
  });

  it('a thrown error rejects with what toWire makes of it', async () => {
    const table = await tableOf([Plain]);
    await assert.rejects(table.get('t.fails')!({}), (error: unknown) => {
      assert.deepEqual(error, { wire: 'it failed' });
      return true;
    });
  });

  it('runs the hooks outermost first around the handler; a hook may change the payload or refuse', async () => {
    const order: string[] = [];
    const hooks: BusHook[] = [
      {
        async around(data, next) {
          order.push('outer in');
          const payload = data as Record<string, unknown>;
          if (payload.refuse) throw new Error('refused by the outer hook');
          payload.partnerId = 'from the hook';
          const reply = await next();
          order.push('outer out');
          return reply;
        },
      },
      {
        async around(_data, next) {
          order.push('inner in');
          try {
            return await next();
          } finally {
            order.push('inner out');
          }
        },
      },
    ];
    const table = await tableOf([Plain], hooks);
    assert.deepEqual(await table.get('t.echo')!({ partnerId: 'as sent' }), { partnerId: 'from the hook', by: 'echo' });
    assert.deepEqual(order, ['outer in', 'inner in', 'inner out', 'outer out']);
    order.length = 0;
    await assert.rejects(table.get('t.echo')!({ refuse: true }), (error: unknown) => {
      assert.deepEqual(error, { wire: 'refused by the outer hook' });
      return true;
    });
    assert.deepEqual(order, ['outer in'], 'a refusal runs nothing inside it');
  });

  it('refuses, at start and naming it, a handler that needs what only Nest pipeline gives', async () => {
    class Always implements CanActivate {
      canActivate() {
        return true;
      }
    }
    @Controller()
    class Guarded {
      @UseGuards(Always)
      @MessagePattern('t.guarded')
      guarded() {
        return 1;
      }
    }
    @Controller()
    class WithContext {
      @MessagePattern('t.context')
      context(@Payload() _data: unknown, @Ctx() _context: unknown) {
        return 1;
      }
    }
    @Controller()
    class WithProperty {
      @MessagePattern('t.property')
      property(@Payload('name') _name: unknown) {
        return 1;
      }
    }
    @Controller()
    class Twice {
      @MessagePattern('t.echo')
      echo() {
        return 1;
      }
    }
    await assert.rejects(tableOf([Guarded]), /Guarded\.guarded: a __guards__/);
    await assert.rejects(tableOf([WithContext]), /WithContext\.context: parameters other than @Payload\(\) first/);
    await assert.rejects(tableOf([WithProperty]), /WithProperty\.property: @Payload\(\) with a property or pipes/);
    await assert.rejects(tableOf([Plain, Twice]), /Twice\.echo: a second handler of t\.echo/);
  });
});
