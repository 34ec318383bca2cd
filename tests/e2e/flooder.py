"""A noisy member, in a process of its own (so that its sending does not slow the measuring
clients' event loop): ``python flooder.py URL COOKIE ORIGIN SOCKETS SECONDS GAP`` opens SOCKETS
websockets as one user and sends ``hint`` frames on each (one every GAP seconds), connecting
again when closed or turned away; prints what it got as JSON."""

import asyncio
import json
import sys
import time

import websockets


async def flood(url, cookie, origin, until, gap, out):
    while time.monotonic() < until:
        try:
            async with websockets.connect(
                url, additional_headers={"Cookie": cookie, "Origin": origin}, max_size=None
            ) as ws:

                async def read(ws=ws):
                    async for text in ws:
                        answer = json.loads(text)
                        if answer["type"] == "hints":
                            out["answered"] += 1
                        elif answer.get("code") == "rate_limited":
                            out["limited"].append(answer.get("id"))

                reader = asyncio.create_task(read())
                try:
                    while time.monotonic() < until:
                        out["sent"] += 1
                        frame_id = f"h{out['sent']}"
                        out["ids"].append(frame_id)
                        await ws.send(json.dumps({"type": "hint", "id": frame_id}))
                        await asyncio.sleep(gap)
                finally:
                    reader.cancel()
        except websockets.ConnectionClosed:
            out["closed"] += 1
            await asyncio.sleep(0.05)
        except websockets.InvalidStatus:
            out["turned_away"] += 1
            await asyncio.sleep(0.05)


async def main(url, cookie, origin, sockets, seconds, gap):
    out = {"sent": 0, "answered": 0, "limited": [], "ids": [], "closed": 0, "turned_away": 0}
    until = time.monotonic() + seconds
    await asyncio.gather(*(flood(url, cookie, origin, until, gap, out) for _ in range(sockets)))
    ids = set(out.pop("ids"))
    out["limited_ids_known"] = all(i in ids for i in out["limited"])
    out["limited"] = len(out["limited"])
    print(json.dumps(out))


if __name__ == "__main__":
    url, cookie, origin, sockets, seconds, gap = sys.argv[1:7]
    asyncio.run(main(url, cookie, origin, int(sockets), float(seconds), float(gap)))
