#!/usr/bin/env python3
"""Browse one page through `robots-gate browser` and print what robots.txt blocked, and why.

Only the DevTools protocol and the `websockets` package (Debian: python3-websockets).

    robots-gate browser --user-agent 'MyBot/1.0' > endpoint.txt &
    python3 robots_client.py "$(head -1 endpoint.txt)" https://example.com/

Prints one JSON object a line: each Robots.requestBlocked event (URL, rule, line, robots.txt and
its sha256), paired with the Network.loadingFailed of the same requestId, then a summary.
Exit status: 0 when the page loaded, 1 when its navigation itself was blocked.
"""
import asyncio
import json
import sys

import websockets


async def browse(ws_url, page_url, settle_s=1.0):
    async with websockets.connect(ws_url, max_size=None) as ws:
        pending = {}
        events = []
        loaded = asyncio.Event()
        last_id = 0

        async def read():
            async for raw in ws:
                msg = json.loads(raw)
                if "id" in msg:
                    pending.pop(msg["id"]).set_result(msg)
                    continue
                events.append(msg)
                if msg["method"] == "Page.loadEventFired":
                    loaded.set()

        reader = asyncio.ensure_future(read())

        async def send(method, params=None, session=None):
            nonlocal last_id
            last_id += 1
            reply = asyncio.get_running_loop().create_future()
            pending[last_id] = reply
            msg = {"id": last_id, "method": method, "params": params or {}}
            if session:
                msg["sessionId"] = session
            await ws.send(json.dumps(msg))
            answer = await reply
            if "error" in answer:
                raise RuntimeError("%s: %s" % (method, answer["error"]["message"]))
            return answer["result"]

        target = (await send("Target.createTarget", {"url": "about:blank"}))["targetId"]
        session = (await send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
        # Robots is robots-gate's own domain: say you want its events, as for any domain.
        await send("Robots.enable", session=session)
        await send("Network.enable", session=session)
        await send("Page.enable", session=session)
        nav = await send("Page.navigate", {"url": page_url}, session)
        if "errorText" not in nav:
            try:
                await asyncio.wait_for(loaded.wait(), 30)
            except asyncio.TimeoutError:
                pass
        await asyncio.sleep(settle_s)  # late fetch()es

        failed = {
            e["params"]["requestId"]: e["params"]["errorText"]
            for e in events
            if e["method"] == "Network.loadingFailed" and e.get("sessionId") == session
        }
        blocked = [e["params"] for e in events if e["method"] == "Robots.requestBlocked"]
        for b in blocked:
            rule = b["rule"]
            print(json.dumps({
                "url": b["url"],
                "type": b["type"],
                "reason": b["reason"],
                "rule": "%s: %s" % (rule["type"].capitalize(), rule["pattern"]) if rule else None,
                "line": rule["line"] if rule else None,
                "robotsUrl": b["robotsUrl"],
                "sha256": b["sha256"],
                "requestId": b["requestId"],
                "networkError": failed.get(b["requestId"]),
            }))
        # Robots.explain: the decision for a URL without requesting it.
        why = await send("Robots.explain", {"url": page_url})
        print(json.dumps({"page": page_url, "navigation": nav.get("errorText", "ok"),
                          "pageAllowed": why["allowed"], "blocked": len(blocked)}))
        reader.cancel()
        return "errorText" not in nav


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: robots_client.py WS_URL PAGE_URL")
    ok = asyncio.run(browse(sys.argv[1], sys.argv[2]))
    sys.exit(0 if ok else 1)
