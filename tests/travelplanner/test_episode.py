"""Scripted episodes: a policy that only knows what the tools told it reproduces the train gold plans."""

import pytest
from planshape.shaping.reward import Scorer
from planshape.validators.travelplanner.agent.episode import run_episode
from planshape.validators.travelplanner.agent.tools import ToolBox
from planshape.validators.travelplanner.plan.formats import from_upstream
from planshape.validators.travelplanner.text import before_parenthesis, name_city

from .test_tools import rows


def gold_policy(query, gold):
    """Look up every item of the gold plan with the tools, then answer with what the tools returned.

    The answer is assembled from tool output rows only: names, cities, flight times and ground-transport
    strings are copied from the responses, never from the gold plan.
    """
    structured = from_upstream(gold)
    cities = set()
    calls = []
    for i, day in enumerate(structured):
        leg = day["transportation"]
        if leg and leg["mode"] == "flight":
            calls.append(("search_flights", {"origin": before_parenthesis(leg["from"]),
                                             "destination": before_parenthesis(leg["to"]), "date": query.date[i]}))
        elif leg:
            calls.append(("search_ground_transportation", {"origin": before_parenthesis(leg["from"]),
                                                           "destination": before_parenthesis(leg["to"]),
                                                           "mode": leg["mode"]}))
        for place in [day["breakfast"], day["lunch"], day["dinner"], day["accommodation"], *day["attraction"]]:
            if place:
                cities.add(before_parenthesis(place["city"]))
    for city in sorted(cities):
        for tool in ("search_restaurants", "search_attractions", "search_accommodations"):
            calls.append((tool, {"city": city}))
    if query.days > 3:
        calls.append(("get_cities", {"state": query.dest}))

    def policy(transcript):
        done = sum(1 for m in transcript if m["role"] == "tool")
        if done < len(calls):
            name, arguments = calls[done]
            return {"tool": name, "arguments": arguments}
        return {"answer": answer_from_tools(transcript, structured)}

    return policy


def answer_from_tools(transcript, structured):
    outputs = {}
    for call, response in zip(transcript[0::2], transcript[1::2], strict=True):
        made = call["tool_call"]
        outputs[(made["name"], tuple(sorted(made["arguments"].items())))] = response["content"]
    places = {}
    flights = {}
    ground = {}
    for (tool, args), text in outputs.items():
        if tool == "search_flights":
            flights.update({r["flight_number"]: r for r in rows(text)})
        elif tool == "search_ground_transportation":
            ground[(dict(args)["origin"], dict(args)["destination"], dict(args)["mode"])] = text
        elif tool.startswith("search_"):
            for r in rows(text):
                places.setdefault((r["name"].strip(), r["city"]), r)  # some listings end in a space

    def place(item):
        if item is None:
            return None
        name, city = name_city(f"{item['name']}, {item['city']}")
        found = places[(name, city)]  # KeyError: the tools never showed this item
        return {"name": found["name"], "city": item["city"]}

    answer = []
    for day in structured:
        leg = day["transportation"]
        if leg and leg["mode"] == "flight":
            row = flights[leg["flight_number"]]
            leg = {"mode": "flight", "flight_number": row["flight_number"], "from": leg["from"], "to": leg["to"],
                   "departure_time": row["departure_time"], "arrival_time": row["arrival_time"]}
        elif leg:
            text = ground[(before_parenthesis(leg["from"]), before_parenthesis(leg["to"]), leg["mode"])]
            assert "no valid information" not in text
            leg = {**leg, **{k: v for k, v in from_upstream([{"current_city": "x", "transportation": text}])[0]
                             ["transportation"].items() if k in ("duration", "distance", "cost")}}
        answer.append({**day, "transportation": leg, "breakfast": place(day["breakfast"]),
                       "lunch": place(day["lunch"]), "dinner": place(day["dinner"]),
                       "accommodation": place(day["accommodation"]),
                       "attraction": [place(a) for a in day["attraction"]]})
    return answer


@pytest.mark.parametrize("mode", ["official", "strict"])
def test_every_gold_plan_is_reproduced_from_tool_outputs(memory_database, train, mode):
    tools = ToolBox(memory_database, max_chars=1_000_000)
    scorer = Scorer(memory_database, mode=mode)
    for query, gold in train:
        episode = run_episode(gold_policy(query, gold), query, tools, scorer)
        assert episode.reward.failure == "", (query.org, query.dest, episode.reward.reason)
        assert episode.reward.components["pass"] == 1.0
        assert episode.turns == episode.tool_calls + 1


def test_episode_without_answer_scores_zero(sample_store):
    tools = ToolBox(sample_store)
    script = [{"tool": "calculator", "arguments": {"expression": "1+1"}}] * 40
    episode = run_episode(script, {"org": "Harborview", "dest": "Lindenfield", "days": 3, "visiting_city_number": 1,
                                   "budget": 100}, tools, Scorer(sample_store), max_turns=30)
    assert episode.turns == 30 and episode.answer is None
    assert episode.reward.reward == 0.0 and episode.reward.failure == "no_answer"
    assert episode.transcript[1] == {"role": "tool", "name": "calculator", "content": "2"}


def test_bad_tool_calls_stay_in_the_transcript(sample_store):
    script = [{"tool": "search_flights", "arguments": {"origin": "Nowhere"}}, {"answer": "[]"}]
    episode = run_episode(script, None, ToolBox(sample_store))
    assert episode.transcript[1]["content"].startswith("Error: search_flights is missing")
    assert episode.turns == 2 and episode.reward is None
