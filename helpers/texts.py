"""Fixed texts for the real-model experiments of ``09_real_model`` (written for this project)."""

PROMPT = "The capital of France is"
CHINESE_PROMPT = "年假怎么申请？"
HEATMAP_TEXT = "Alice gave the book to Bob because he asked for it."

# perplexity check (tests: below 12 with the shipped weights)
PARAGRAPH = (
    "Paris is the capital and largest city of France. It is located on the river Seine, in the north of "
    "the country. Paris is known for its museums and monuments, including the Eiffel Tower, the Louvre "
    "and the cathedral of Notre-Dame. The city has a population of more than two million people, and the "
    "wider metropolitan area is home to over twelve million. Paris is one of the most visited cities in "
    "the world, and it is an important centre for art, fashion, food and culture. The city is also a "
    "major centre of business and finance in Europe."
)

# the StreamingLLM experiment (about 250 tokens)
LONG_TEXT = (
    "Every spring, the small town by the river holds a market in its main square. Farmers come from the "
    "surrounding villages with fresh vegetables, eggs, honey and bread, and the stalls are set up before "
    "sunrise. By eight o'clock the square is full of people. Some come to buy food for the week, others "
    "simply enjoy walking between the stalls and talking to their neighbours. The market has a long "
    "history. It started more than two hundred years ago, when the river was the main road for trade and "
    "boats brought salt, cloth and tools from the city. Today the boats are gone, but the market remains "
    "the heart of the town. Children run between the tables, musicians play near the fountain, and the "
    "smell of baking fills the air. In the afternoon the farmers pack their carts and drive home, and the "
    "square becomes quiet again. The town council cleans the streets in the evening, and by the next "
    "morning nothing shows that hundreds of people were there the day before. Many visitors say that the "
    "market is the best reason to come to the town, and some of them return every year. The farmers are "
    "proud of their products and happy to explain how they grow them, which animals they keep and how "
    "the weather changed the harvest this year."
)
