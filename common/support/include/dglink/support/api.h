// Visibility macro for the support library's C++ interface.
#pragma once
#define DGLINK_SUPPORT_API __attribute__((visibility("default")))
